package dev.troupe.spring.aot;

import dev.troupe.actor.ActorRef;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Registers binding hints (what Jackson needs to write and read them, and the class lookup of the
 * remote serializers' manifests) for the message types of the application's {@code ActorRef<T>}
 * beans: {@code @TroupeActor} actors and {@code troupe.remote.refs.*}, and, for a sealed type,
 * every permitted subtype. Message types reached only through other refs (replies, children)
 * need {@code @RegisterReflectionForBinding} in the application.
 */
class TroupeMessageTypesAotProcessor implements BeanFactoryInitializationAotProcessor {

    @Override
    public BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
        final Set<Class<?>> types = messageTypes(beanFactory);
        if (types.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> register(generationContext.getRuntimeHints().reflection(), types);
    }

    /** @return the message types of every {@code ActorRef<T>} bean definition, sealed subtypes included */
    static Set<Class<?>> messageTypes(ConfigurableListableBeanFactory beanFactory) {
        final Set<Class<?>> types = new LinkedHashSet<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            if (!(beanFactory.getMergedBeanDefinition(name) instanceof RootBeanDefinition definition)) {
                continue;
            }
            final ResolvableType type = definition.getResolvableType();
            if (type.toClass() == ActorRef.class) {
                final Class<?> message = type.as(ActorRef.class).getGeneric(0).resolve();
                if (message != null) {
                    addWithPermittedSubclasses(message, types);
                }
            }
        }
        return types;
    }

    private static void addWithPermittedSubclasses(Class<?> type, Set<Class<?>> types) {
        if (!types.add(type)) {
            return;
        }
        final Class<?>[] permitted = type.getPermittedSubclasses();
        if (permitted != null) {
            for (Class<?> sub : permitted) {
                addWithPermittedSubclasses(sub, types);
            }
        }
    }

    static void register(ReflectionHints hints, Set<Class<?>> types) {
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints, types.toArray(new Class<?>[0]));
    }
}
