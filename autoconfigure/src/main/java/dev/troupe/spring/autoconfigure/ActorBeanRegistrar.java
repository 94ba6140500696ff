package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.InstanceSupplier;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

import static dev.troupe.spring.autoconfigure.AnnotatedBeanMethods.describe;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns every {@code @Bean @TroupeActor} method returning {@code Behavior<T>} into an
 * {@code ActorRef<T>} bean: named {@code <beanName>Ref}, qualified {@code <beanName>} (and
 * aliased to the actor's name when {@code @TroupeActor(name)} differs from the bean's),
 * typed {@code ActorRef<T>} so it is injectable by its generic type, and created by
 * spawning the behavior bean as a top-level actor on the context's {@link ActorSystem}.
 *
 * <p>Misuse fails while the bean definitions are read, before anything starts, with Boot's
 * failure report naming the bean ({@link TroupeConfigurationException}): a return type other
 * than {@code Behavior<SomeType>} (raw, wildcard or type variable), an invalid actor name, two
 * actor beans with one actor name, a bean already using the ref bean's name, or
 * {@code @TroupeActor} on a method that is not a {@code @Bean} method.
 */
public class ActorBeanRegistrar implements BeanDefinitionRegistryPostProcessor {

    /** Suffix of the ref bean's name after the behavior bean's name. */
    public static final String REF_SUFFIX = "Ref";

    /** Attribute of a ref bean definition: the name of the {@code @TroupeActor} bean it spawns. */
    public static final String ACTOR_BEAN_ATTRIBUTE = "dev.troupe.spring.actorBean";

    /**
     * Attribute of each ref bean's definition: the actor's message class, so the remote
     * transport can publish bean actors (only published actors are addressable from other nodes).
     */
    public static final String MESSAGE_CLASS_ATTRIBUTE = "dev.troupe.actor.messageClass";

    /** Attribute of a ref bean definition: the id of the service key to register the actor under ({@code @TroupeActor(serviceKey)}). */
    public static final String SERVICE_KEY_ATTRIBUTE = "dev.troupe.cluster.serviceKey";

    /**
     * Attribute of a bean definition that a registrar of Troupe's registers again at every start
     * from the environment (remote refs, group routers): Spring AOT leaves such definitions out of
     * the generated context, whose registrar then registers them as it does without AOT.
     */
    public static final String REGISTERED_AT_STARTUP_ATTRIBUTE = "dev.troupe.spring.registeredAtStartup";

    /** Attributes of an actor ref's definition that Spring AOT reads to generate its instance supplier. */
    static final String ACTOR_NAME_ATTRIBUTE = "dev.troupe.spring.actorName";
    static final String DISPATCHER_ATTRIBUTE = "dev.troupe.spring.dispatcher";
    static final String MAILBOX_CAPACITY_ATTRIBUTE = "dev.troupe.spring.mailboxCapacity";
    static final String METRICS_ATTRIBUTE = "dev.troupe.spring.metrics";

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        final ClassLoader classLoader = AnnotatedBeanMethods.classLoader(registry);
        final Map<String, String> beanByActorName = new LinkedHashMap<>();
        AnnotatedBeanMethods.scan(registry, TroupeActor.class, "no actor is spawned for it and no ActorRef bean is registered",
            " (a @TroupeActor method is a @Bean method that returns Behavior<MessageType>)", (beanName, definition, factoryMethod) -> {
                final Map<String, Object> attributes = factoryMethod.getAnnotationAttributes(TroupeActor.class.getName());
                final String configuredName = (String) attributes.get("name");
                final String actorName = configuredName == null || configuredName.isEmpty() ? beanName : configuredName;
                final ResolvableType messageType = messageType(beanName, definition, factoryMethod, classLoader);
                validateActorName(beanName, definition, actorName);
                final String previous = beanByActorName.putIfAbsent(actorName, beanName);
                if (previous != null) {
                    throw new TroupeConfigurationException(
                        "@TroupeActor bean '" + beanName + "' uses the actor name '" + actorName
                            + "', which @TroupeActor bean '" + previous + "' already uses: two top-level actors cannot share a name.",
                        "Give one of the beans '" + previous + "' and '" + beanName + "' another name with @TroupeActor(name = \"...\").");
                }
                final String refBeanName = beanName + REF_SUFFIX;
                if (registry.containsBeanDefinition(refBeanName)) {
                    throw new TroupeConfigurationException(
                        "@TroupeActor bean '" + beanName + "' needs the bean name '" + refBeanName
                            + "' for its ActorRef, but another bean already has that name.",
                        "Rename the other bean '" + refBeanName + "', or rename the @TroupeActor bean '" + beanName + "'.");
                }
                final RootBeanDefinition ref = refDefinition(registry, beanName, definition, actorName, messageType, props(attributes));
                // Boot's reports (two candidates for one injection point, a failed creation) say where the bean came from
                ref.setResourceDescription(AnnotatedBeanMethods.origin(TroupeActor.class, factoryMethod));
                ref.setAttribute(ACTOR_NAME_ATTRIBUTE, actorName);
                ref.setAttribute(DISPATCHER_ATTRIBUTE, String.valueOf(attributes.get("dispatcher")));
                ref.setAttribute(MAILBOX_CAPACITY_ATTRIBUTE, attributes.get("mailboxCapacity"));
                ref.setAttribute(METRICS_ATTRIBUTE, attributes.get("metrics"));
                final String serviceKey = (String) attributes.get("serviceKey");
                if (serviceKey != null && !serviceKey.isEmpty()) {
                    checkServiceKey(beanName, serviceKey, classLoader);
                    ref.setAttribute(SERVICE_KEY_ATTRIBUTE, serviceKey);
                }
                registry.registerBeanDefinition(refBeanName, ref);
                // An actor named apart from its bean answers to @Qualifier("<actor name>") too,
                // unless that name is already some bean's.
                if (!actorName.equals(beanName) && !registry.containsBeanDefinition(actorName) && !registry.isAlias(actorName)) {
                    registry.registerAlias(refBeanName, actorName);
                }
            });
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work happens on the registry.
    }

    private static RootBeanDefinition refDefinition(BeanDefinitionRegistry registry, String behaviorBean, BeanDefinition behaviorDefinition,
                                                    String actorName, ResolvableType messageType, Props props) {
        final BeanFactory beanFactory = (BeanFactory) registry;
        final RootBeanDefinition ref = new RootBeanDefinition(ActorRef.class);
        ref.setTargetType(ResolvableType.forClassWithGenerics(ActorRef.class, messageType));
        ref.setInstanceSupplier(() -> spawn(beanFactory, behaviorBean, actorName, props));
        ref.setDependsOn(behaviorBean);
        // A qualified element rather than an AutowireCandidateQualifier: Spring then still
        // falls back on the bean's name and aliases for other @Qualifier values.
        ref.setQualifiedElement(new QualifierElement(behaviorBean));
        ref.setPrimary(behaviorDefinition.isPrimary());
        ref.setLazyInit(behaviorDefinition.isLazyInit());
        ref.setDescription("ActorRef of the @TroupeActor bean '" + behaviorBean + "' (actor '" + actorName + "')");
        ref.setAttribute(ACTOR_BEAN_ATTRIBUTE, behaviorBean);
        ref.setAttribute(MESSAGE_CLASS_ATTRIBUTE, messageType.toClass());
        return ref;
    }

    /**
     * The instance supplier of an actor ref bean in a context Spring AOT generated (the generated
     * code calls it; applications do not).
     *
     * @param behaviorBean the {@code @TroupeActor} bean
     * @param actorName the actor's name
     * @param dispatcher {@code @TroupeActor(dispatcher)}
     * @param mailboxCapacity {@code @TroupeActor(mailboxCapacity)}
     * @param metrics {@code @TroupeActor(metrics)}
     * @return spawns the actor when the ref bean is created
     */
    public static InstanceSupplier<ActorRef<?>> aotInstanceSupplier(String behaviorBean, String actorName, String dispatcher,
                                                                    int mailboxCapacity, boolean metrics) {
        final Props props = props(Map.of("dispatcher", dispatcher, "mailboxCapacity", mailboxCapacity, "metrics", metrics));
        return registered -> spawn(registered.getBeanFactory(), behaviorBean, actorName, props);
    }

    /**
     * @param behaviorBean the {@code @TroupeActor} bean
     * @return the qualifier of its ref bean's definition, for a context Spring AOT generated
     */
    public static AnnotatedElement aotQualifier(String behaviorBean) {
        return new QualifierElement(behaviorBean);
    }

    private static ActorRef<?> spawn(BeanFactory beanFactory, String behaviorBean, String actorName, Props props) {
        final ActorSystem system = beanFactory.getBean(ActorSystem.class);
        final Behavior<?> behavior = beanFactory.getBean(behaviorBean, Behavior.class);
        return system.spawn(behavior, actorName, props);
    }

    private static Props props(Map<String, Object> attributes) {
        Props props = Props.empty();
        final String dispatcher = (String) attributes.get("dispatcher");
        if (dispatcher != null && !dispatcher.isEmpty()) {
            props = props.withDispatcher(dispatcher);
        }
        final int capacity = (Integer) attributes.get("mailboxCapacity");
        if (capacity == 0) {
            props = props.withUnboundedMailbox();
        } else if (capacity > 0) {
            props = props.withBoundedMailbox(capacity);
        }
        if ((Boolean) attributes.get("metrics")) {
            props = props.withMetrics();
        }
        return props;
    }

    private static void checkServiceKey(String beanName, String serviceKey, ClassLoader classLoader) {
        if (!ClassUtils.isPresent("dev.troupe.cluster.Receptionist", classLoader)) {
            throw new TroupeConfigurationException(
                "@TroupeActor bean '" + beanName + "' asks to be registered under the service key '" + serviceKey
                    + "', but troupe-cluster (the receptionist) is not on the class path.",
                "Depend on dev.troupe:troupe-spring-boot-starter-cluster instead of dev.troupe:troupe-spring-boot-starter,"
                    + " or remove serviceKey from @TroupeActor.");
        }
        if (serviceKey.length() > 200) {
            throw new TroupeConfigurationException(
                "@TroupeActor bean '" + beanName + "' has a service key of " + serviceKey.length() + " characters.",
                "Use a service key of at most 200 characters in @TroupeActor(serviceKey = ...).");
        }
    }

    private static void validateActorName(String beanName, BeanDefinition definition, String actorName) {
        try {
            ActorPath.root("check").child(actorName);
        } catch (IllegalArgumentException e) {
            throw new TroupeConfigurationException(
                "@TroupeActor bean '" + beanName + "' has an invalid actor name: " + e.getMessage(),
                "Give the bean a valid actor name with @TroupeActor(name = \"...\"): not empty, without '/', '@', '#', '?' or whitespace.", e);
        }
    }

    private static ResolvableType messageType(String beanName, BeanDefinition definition, MethodMetadata factoryMethod, ClassLoader classLoader) {
        final Method method = AnnotatedBeanMethods.findMethod(TroupeActor.class, beanName, definition, factoryMethod, classLoader);
        final ResolvableType returnType = ResolvableType.forMethodReturnType(method);
        if (!Behavior.class.isAssignableFrom(returnType.toClass())) {
            throw new TroupeConfigurationException(
                "@TroupeActor bean '" + beanName + "' must return Behavior<MessageType>, but " + describe(method) + " returns " + returnType + ".",
                "Make " + describe(method) + " return Behavior<MessageType>, or remove @TroupeActor from it.");
        }
        final ResolvableType asBehavior = returnType.as(Behavior.class);
        final Type generic = asBehavior.hasGenerics() ? asBehavior.getGeneric(0).getType() : null;
        if (generic == null || generic instanceof WildcardType || generic instanceof TypeVariable<?> || asBehavior.getGeneric(0).resolve() == null) {
            throw new TroupeConfigurationException(
                "@TroupeActor bean '" + beanName + "' returns " + returnType + " from " + describe(method)
                    + ": without a message type its ActorRef bean cannot be injected by type.",
                "Declare the message type in the return type of " + describe(method)
                    + ", e.g. Behavior<MyActor.Command>, so the ActorRef<MyActor.Command> bean can be injected.");
        }
        return asBehavior.getGeneric(0);
    }

    /** Carries one {@code @Qualifier(value)} for a bean definition built in code. */
    static final class QualifierElement implements AnnotatedElement {
        private final Annotation[] annotations;

        QualifierElement(String value) {
            this.annotations = new Annotation[] {AnnotationUtils.synthesizeAnnotation(Map.of("value", value), Qualifier.class, null)};
        }

        @Override
        public <A extends Annotation> A getAnnotation(Class<A> type) {
            return type == Qualifier.class ? type.cast(annotations[0]) : null;
        }

        @Override
        public Annotation[] getAnnotations() {
            return annotations.clone();
        }

        @Override
        public Annotation[] getDeclaredAnnotations() {
            return annotations.clone();
        }

        @Override
        public String toString() {
            return "@TroupeActor ref " + annotations[0];
        }
    }
}
