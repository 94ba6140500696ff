package dev.troupe.remote;

import dev.troupe.remote.internal.BuiltInSerializers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which serializer handles which message class. Built-ins for {@code String}, {@code byte[]}
 * and the primitive wrappers are always present; others are registered per exact class, or
 * through a fallback serializer with an allow-list (such as
 * {@link dev.troupe.remote.jackson.JacksonSerializer}). Java serialization is never used: a
 * type with no serializer cannot be sent, and a tell of it goes to dead letters as
 * {@code no-serializer}.
 *
 * <p>Immutable and thread-safe once built. Lookups by class are cached in a {@link ClassValue},
 * so the per-message lookup allocates nothing.
 */
public final class SerializerRegistry {

    /** What handles one class. */
    public static final class Binding {
        private final Class<?> type;
        private final Serializer<Object> serializer;

        Binding(Class<?> type, Serializer<Object> serializer) {
            this.type = type;
            this.serializer = serializer;
        }

        /** @return the message class */
        public Class<?> type() {
            return type;
        }

        /** @return its serializer */
        public Serializer<Object> serializer() {
            return serializer;
        }
    }

    private static final Binding NONE = new Binding(Void.class, null);

    private final Map<Class<?>, Serializer<Object>> exact;
    private final Map<String, Class<?>> exactByName;
    private final List<Serializer<Object>> fallbacks;
    private final Serializer<?>[] byId = new Serializer<?>[Serializer.MAX_ID + 1];
    /** Per serializer id, the first class registered with it exactly (null for fallbacks and unused ids). */
    private final Map<Integer, String> typeNames = new HashMap<>();
    private final ClassValue<Binding> bindings = new ClassValue<>() {
        @Override
        protected Binding computeValue(Class<?> type) {
            return bind(type);
        }
    };

    private SerializerRegistry(Builder b) {
        this.exact = Collections.unmodifiableMap(new LinkedHashMap<>(b.exact));
        final Map<String, Class<?>> names = new HashMap<>();
        for (Class<?> c : exact.keySet()) {
            names.put(c.getName(), c);
        }
        this.exactByName = names;
        this.fallbacks = List.copyOf(b.fallbacks);
        for (Map.Entry<Class<?>, Serializer<Object>> e : exact.entrySet()) {
            index(e.getValue());
            typeNames.putIfAbsent(e.getValue().id(), e.getKey().getName());
        }
        for (Serializer<Object> s : fallbacks) {
            index(s);
        }
    }

    private void index(Serializer<?> s) {
        final int id = s.id();
        if (id < 1 || id > Serializer.MAX_ID) {
            throw new IllegalArgumentException("serializer id must be 1.." + Serializer.MAX_ID + ": " + s + " has " + id);
        }
        final Serializer<?> prev = byId[id];
        if (prev != null && prev != s) {
            throw new IllegalArgumentException("serializer id " + id + " is used by both " + prev.getClass().getName()
                + " and " + s.getClass().getName());
        }
        byId[id] = s;
    }

    /** @return a builder with the built-ins already registered */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a registry with only the built-ins */
    public static SerializerRegistry defaults() {
        return builder().build();
    }

    /**
     * @param type a message class
     * @return its binding, or null if no serializer handles it; allocation-free after the first call per class
     */
    public Binding binding(Class<?> type) {
        final Binding b = bindings.get(type);
        return b == NONE ? null : b;
    }

    /**
     * @param id a serializer id from a frame
     * @return the serializer, or null if this node has none with that id
     */
    @SuppressWarnings("unchecked")
    public Serializer<Object> byId(int id) {
        return id < 1 || id > Serializer.MAX_ID ? null : (Serializer<Object>) byId[id];
    }

    /**
     * For reports and logs about a message whose frame names no class (a serializer registered
     * for one class writes no manifest).
     *
     * @param id a serializer id
     * @return the class registered with it (the first, if several), or {@code "serializer <id>"}
     */
    public String typeName(int id) {
        final String name = typeNames.get(id);
        return name != null ? name : "serializer " + id;
    }

    /**
     * Resolves a class named by a peer's manifest, loading it only if it is registered or on a
     * fallback's allow-list, or (with a fallback that {@linkplain Serializer#decidesByClass()
     * decides by class}, such as the marker serializers) loading it without initializing it and
     * keeping it only if a fallback allows it: a peer cannot make this node run code of a class
     * that is not allowed, nor bind one.
     *
     * @param className the name from the frame
     * @return the class, or null if it is not allowed or not found
     */
    public Class<?> manifestClass(String className) {
        final Class<?> known = exactByName.get(className);
        if (known != null) {
            return known;
        }
        for (int i = 0; i < fallbacks.size(); i++) {
            final Serializer<Object> f = fallbacks.get(i);
            if (f.allows(className) || f.decidesByClass()) {
                try {
                    // not initialized: none of its code runs unless a serializer allows it
                    final Class<?> c = Class.forName(className, false, classLoader());
                    return binding(c) != null ? c : null;
                } catch (ClassNotFoundException | LinkageError e) {
                    return null;
                }
            }
        }
        return null;
    }

    private static ClassLoader classLoader() {
        final ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : SerializerRegistry.class.getClassLoader();
    }

    /**
     * For startup checks: the concrete message classes under a declared message type that no
     * serializer handles. For a sealed interface or class every permitted subtype is checked;
     * for another interface or abstract class only the type itself can be checked, and it is
     * reported unless a fallback allows it.
     *
     * @param declared the message type of a remote ref or actor
     * @return the classes that could not be sent, empty if all can
     */
    public List<Class<?>> unserializableTypes(Class<?> declared) {
        final List<Class<?>> missing = new ArrayList<>();
        collectMissing(declared, missing, 0);
        return missing;
    }

    /**
     * For start-up checks: the concrete message classes under a declared message type (every
     * permitted subtype of a sealed type) that have a serializer which cannot build them from
     * their bytes ({@link Serializer#readProblem}), with the reason. Types without a serializer are
     * {@link #unserializableTypes}' business and not listed here.
     *
     * @param declared the message type of a remote ref or actor
     * @return class to problem, empty if every such class can be read back
     */
    public Map<Class<?>, String> unreadableTypes(Class<?> declared) {
        final List<Class<?>> concrete = new ArrayList<>();
        collectConcrete(declared, concrete, 0);
        final Map<Class<?>, String> problems = new LinkedHashMap<>();
        for (Class<?> c : concrete) {
            final Binding b = binding(c);
            if (b != null) {
                final String problem = b.serializer().readProblem(c);
                if (problem != null) {
                    problems.put(c, problem);
                }
            }
        }
        return problems;
    }

    private static void collectConcrete(Class<?> type, List<Class<?>> into, int depth) {
        if (depth > 16) {
            return;
        }
        if (type.isSealed()) {
            for (Class<?> sub : type.getPermittedSubclasses()) {
                collectConcrete(sub, into, depth + 1);
            }
        }
        if (!type.isInterface() && !java.lang.reflect.Modifier.isAbstract(type.getModifiers()) && !type.isPrimitive()) {
            into.add(type);
        }
    }

    private void collectMissing(Class<?> type, List<Class<?>> missing, int depth) {
        if (depth > 16) {
            return;
        }
        if (type.isSealed()) {
            for (Class<?> sub : type.getPermittedSubclasses()) {
                collectMissing(sub, missing, depth + 1);
            }
            if (type.isInterface() || java.lang.reflect.Modifier.isAbstract(type.getModifiers())) {
                return;
            }
        }
        if (binding(type) == null) {
            missing.add(type);
        }
    }

    private Binding bind(Class<?> type) {
        final Serializer<Object> s = exact.get(type);
        if (s != null) {
            return new Binding(type, s);
        }
        for (int i = 0; i < fallbacks.size(); i++) {
            final Serializer<Object> f = fallbacks.get(i);
            if (f.allows(type)) {
                return new Binding(type, f);
            }
        }
        return NONE;
    }

    /** Builds a registry; not thread-safe. */
    public static final class Builder {
        private final Map<Class<?>, Serializer<Object>> exact = new LinkedHashMap<>();
        private final List<Serializer<Object>> fallbacks = new ArrayList<>();

        private Builder() {
            BuiltInSerializers.registerAll(this);
        }

        /**
         * Registers a serializer for exactly one class (subclasses are not covered).
         *
         * @param type the message class
         * @param serializer its serializer
         * @param <T> the message type
         * @return this builder
         */
        @SuppressWarnings("unchecked")
        public <T> Builder register(Class<T> type, Serializer<? super T> serializer) {
            exact.put(type, (Serializer<Object>) serializer);
            return this;
        }

        /**
         * Adds a serializer for every class its {@link Serializer#allows(String)} accepts and that
         * has no exact registration; such a serializer must {@link Serializer#includeManifest() include a manifest}.
         *
         * @param serializer the serializer
         * @return this builder
         */
        @SuppressWarnings("unchecked")
        public Builder fallback(Serializer<?> serializer) {
            if (!serializer.includeManifest()) {
                throw new IllegalArgumentException("a fallback serializer must include a manifest: " + serializer);
            }
            fallbacks.add((Serializer<Object>) serializer);
            return this;
        }

        /**
         * @return the registry
         * @throws IllegalArgumentException if two different serializers share an id
         */
        public SerializerRegistry build() {
            return new SerializerRegistry(this);
        }
    }
}
