package dev.troupe.actor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The ordered cases of a receive builder, compiled into arrays so matching a message is
 * a loop over {@code Class.isInstance} with no allocation.
 */
public final class Cases<R> {

    private final Class<?>[] types;
    private final Predicate<Object>[] tests;
    private final Function<Object, R>[] handlers;

    @SuppressWarnings("unchecked")
    private Cases(List<Class<?>> types, List<Predicate<Object>> tests, List<Function<Object, R>> handlers) {
        this.types = types.toArray(new Class<?>[0]);
        this.tests = tests.toArray(new Predicate[0]);
        this.handlers = handlers.toArray(new Function[0]);
    }

    /**
     * @param value the message or signal
     * @return the first matching handler's result, or null when no case matches
     */
    public R apply(Object value) {
        final Class<?>[] types = this.types;
        for (int i = 0; i < types.length; i++) {
            if (types[i].isInstance(value)) {
                final Predicate<Object> test = tests[i];
                if (test == null || test.test(value)) {
                    final R result = handlers[i].apply(value);
                    if (result == null) {
                        throw new IllegalStateException("a receive handler for " + types[i].getName() + " returned null");
                    }
                    return result;
                }
            }
        }
        return null;
    }

    /** @return whether there are no cases */
    public boolean isEmpty() {
        return types.length == 0;
    }

    /** Collects cases in order. */
    public static final class Builder<R> {
        private final List<Class<?>> types = new ArrayList<>();
        private final List<Predicate<Object>> tests = new ArrayList<>();
        private final List<Function<Object, R>> handlers = new ArrayList<>();

        /**
         * @param type the class matched
         * @param test an extra test, or null
         * @param handler the handler
         * @param <M> the matched type
         */
        @SuppressWarnings("unchecked")
        public <M> void add(Class<M> type, Predicate<M> test, Function<M, R> handler) {
            if (type == null || handler == null) {
                throw new NullPointerException("type and handler must not be null");
            }
            types.add(type);
            tests.add((Predicate<Object>) test);
            handlers.add((Function<Object, R>) handler);
        }

        /** @return the compiled cases */
        public Cases<R> build() {
            return new Cases<>(types, tests, handlers);
        }
    }
}
