package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.cluster.sharding.ShardingEnvelope;
import dev.troupe.spring.cluster.sharding.EntityRefFactory;
import dev.troupe.spring.cluster.sharding.TroupeEntity;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

import static dev.troupe.spring.autoconfigure.AnnotatedBeanMethods.describe;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns every {@code @Bean @TroupeEntity} method returning a behavior factory
 * ({@code Function<EntityContext<M>, Behavior<M>>} or {@code Function<String, Behavior<M>>}) into
 * an {@code EntityRefFactory<M>} bean, named {@code <beanName>RefFactory} and qualified
 * {@code <beanName>}, whose creation initializes the entity type on the context's
 * {@link ClusterSharding} with the {@code troupe.cluster.sharding.*} defaults.
 *
 * <p>Misuse fails while the bean definitions are read, before anything starts, with Boot's
 * failure report naming the bean: another return type or one without its message type, an
 * invalid or shared entity type name, a stop message that is not one of the entity's messages or
 * cannot be made, {@code @TroupeEntity} on a method that is not a {@code @Bean} method. An entity
 * bean without the cluster fails naming {@code troupe.cluster.enabled}.
 */
class EntityBeanRegistrar implements BeanDefinitionRegistryPostProcessor {

    /** Suffix of the factory bean's name after the behavior factory bean's name. */
    public static final String REF_FACTORY_SUFFIX = "RefFactory";

    /** Attribute of a factory bean definition: the entity type's name. */
    public static final String ENTITY_TYPE_ATTRIBUTE = "dev.troupe.cluster.sharding.entityType";

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        final ClassLoader classLoader = AnnotatedBeanMethods.classLoader(registry);
        final Map<String, String> beanByType = new LinkedHashMap<>();
        AnnotatedBeanMethods.scan(registry, TroupeEntity.class,
            "no entity type is initialized for it and no EntityRefFactory bean is registered", "", (beanName, definition, factoryMethod) -> {
                final Method method = AnnotatedBeanMethods.findMethod(TroupeEntity.class, beanName, definition, factoryMethod, classLoader);
                final TroupeEntity annotation = method.getAnnotation(TroupeEntity.class);
                final Factory factory = factoryType(beanName, method);
                final String typeName = annotation.name().isEmpty() ? beanName : annotation.name();
                final EntityTypeKey<?> key;
                try {
                    key = EntityTypeKey.create(factory.messageType.toClass(), typeName);
                } catch (IllegalArgumentException e) {
                    throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' has an invalid entity type name: " + e.getMessage(),
                        "Name the entity type with @TroupeEntity(name = \"...\"): 1 to " + EntityTypeKey.MAX_NAME_LENGTH
                            + " letters, digits, '-', '_' or '.'.", e);
                }
                final String previous = beanByType.putIfAbsent(typeName, beanName);
                if (previous != null) {
                    throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' uses the entity type name '" + typeName
                        + "', which @TroupeEntity bean '" + previous + "' already uses: one name is one entity type, cluster-wide.",
                        "Give one of the beans '" + previous + "' and '" + beanName + "' another name with @TroupeEntity(name = \"...\").");
                }
                if (annotation.numberOfShards() < 0 || annotation.numberOfShards() > Entity.MAX_NUMBER_OF_SHARDS) {
                    throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' asks for " + annotation.numberOfShards() + " shards.",
                        "Set @TroupeEntity(numberOfShards) between 1 and " + Entity.MAX_NUMBER_OF_SHARDS
                            + ", or leave it 0 for troupe.cluster.sharding.number-of-shards.");
                }
                final Object stopMessage = stopMessage(beanName, annotation.stopMessage(), factory.messageType.toClass());
                final String factoryBeanName = beanName + REF_FACTORY_SUFFIX;
                if (registry.containsBeanDefinition(factoryBeanName)) {
                    throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' needs the bean name '" + factoryBeanName
                        + "' for its EntityRefFactory, but another bean already has that name.",
                        "Rename the other bean '" + factoryBeanName + "', or rename the @TroupeEntity bean '" + beanName + "'.");
                }
                final BeanFactory beanFactory = (BeanFactory) registry;
                final EntitySpec spec = new EntitySpec(beanName, key, factory.ofContext, annotation.role(), stopMessage, annotation.numberOfShards());
                final RootBeanDefinition ref = new RootBeanDefinition(EntityRefFactory.class);
                ref.setTargetType(ResolvableType.forClassWithGenerics(EntityRefFactory.class, factory.messageType));
                ref.setInstanceSupplier(() -> init(beanFactory, spec));
                ref.setDependsOn(beanName);
                ref.setQualifiedElement(new ActorBeanRegistrar.QualifierElement(beanName));
                ref.setPrimary(definition.isPrimary());
                ref.setLazyInit(definition.isLazyInit());
                ref.setDescription("EntityRefFactory of the @TroupeEntity bean '" + beanName + "' (entity type '" + typeName + "')");
                ref.setAttribute(ENTITY_TYPE_ATTRIBUTE, typeName);
                ref.setResourceDescription(AnnotatedBeanMethods.origin(TroupeEntity.class, factoryMethod));
                registry.registerBeanDefinition(factoryBeanName, ref);
            });
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work happens on the registry.
    }

    /** What the annotation and the method's signature say about one entity type. */
    private record EntitySpec(String beanName, EntityTypeKey<?> key, boolean ofContext, String role, Object stopMessage, int numberOfShards) {
    }

    private record Factory(ResolvableType messageType, boolean ofContext) {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static EntityRefFactory<?> init(BeanFactory beanFactory, EntitySpec spec) {
        final ClusterSharding sharding = beanFactory.getBeanProvider(ClusterSharding.class).getIfAvailable();
        if (sharding == null) {
            throw new InvalidTroupePropertyException("troupe.cluster.enabled", "is not true, but @TroupeEntity bean '" + spec.beanName
                + "' needs cluster sharding, which runs on the cluster",
                "Set troupe.cluster.enabled=true (with troupe.remote.enabled=true) on every node, or remove @TroupeEntity from '"
                    + spec.beanName + "'.");
        }
        final TroupeClusterProperties.Sharding p = beanFactory.getBean(TroupeClusterProperties.class).getSharding();
        final Function behaviors = beanFactory.getBean(spec.beanName, Function.class);
        final Function<EntityContext<Object>, Behavior<Object>> create = spec.ofContext ? behaviors
            : ctx -> (Behavior<Object>) behaviors.apply(ctx.entityId());
        Entity entity = configure(Entity.of((EntityTypeKey<Object>) spec.key, create), p);
        if (spec.numberOfShards > 0) {
            entity = entity.withNumberOfShards(spec.numberOfShards);
        }
        if (!spec.role.isEmpty()) {
            entity = entity.withRole(spec.role);
        }
        if (spec.stopMessage != null) {
            entity = entity.withStopMessage(spec.stopMessage);
        }
        final ActorRef<ShardingEnvelope<Object>> region = sharding.init(entity);
        return EntityRefFactory.of(sharding, (EntityTypeKey<Object>) spec.key, region);
    }

    /**
     * Applies the {@code troupe.cluster.sharding.*} defaults, refusing a value out of range with
     * Boot's failure report naming the property.
     *
     * @param entity the entity type
     * @param p the properties
     * @param <M> the message type
     * @param <E> what the region accepts
     * @return the entity type with them
     */
    static <M, E> Entity<M, E> configure(Entity<M, E> entity, TroupeClusterProperties.Sharding p) {
        validate(p);
        Entity<M, E> e = entity.withNumberOfShards(p.getNumberOfShards())
            .withBufferSize(p.getBufferSize())
            .withHandOffTimeout(p.getHandOffTimeout())
            .withMaxHops(p.getMaxHops())
            .withActiveEntityLimit(p.getPassivation().getMaxActiveEntities());
        final Duration idle = p.getPassivation().getIdleTimeout();
        return idle == null || idle.isZero() ? e.withoutPassivation() : e.withPassivation(idle);
    }

    /**
     * @param p the {@code troupe.cluster.sharding.*} properties
     * @throws InvalidTroupePropertyException naming the first property out of range
     */
    static void validate(TroupeClusterProperties.Sharding p) {
        if (p.getNumberOfShards() < 1 || p.getNumberOfShards() > Entity.MAX_NUMBER_OF_SHARDS) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.number-of-shards",
                "must be between 1 and " + Entity.MAX_NUMBER_OF_SHARDS + ": " + p.getNumberOfShards(),
                "Set troupe.cluster.sharding.number-of-shards to about ten times the largest number of members (default 1000), the same on every node.");
        }
        if (p.getBufferSize() < 0) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.buffer-size", "must not be negative: " + p.getBufferSize(),
                "Set troupe.cluster.sharding.buffer-size to the most messages a node may hold while shards move (default 100000).");
        }
        if (p.getHandOffTimeout() == null || p.getHandOffTimeout().isNegative() || p.getHandOffTimeout().isZero()) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.hand-off-timeout", "must be positive: " + p.getHandOffTimeout(),
                "Set troupe.cluster.sharding.hand-off-timeout to how long an entity may take to stop, such as 10s.");
        }
        if (p.getMaxHops() < 1) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.max-hops", "must be at least 1: " + p.getMaxHops(),
                "Set troupe.cluster.sharding.max-hops to 1 or more (default 5).");
        }
        final Duration idle = p.getPassivation().getIdleTimeout();
        if (idle != null && idle.isNegative()) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.passivation.idle-timeout", "must not be negative: " + idle,
                "Set troupe.cluster.sharding.passivation.idle-timeout to a positive time such as 2m, or 0 to keep idle entities.");
        }
        if (p.getPassivation().getMaxActiveEntities() < 0) {
            throw new InvalidTroupePropertyException("troupe.cluster.sharding.passivation.max-active-entities",
                "must not be negative: " + p.getPassivation().getMaxActiveEntities(),
                "Set troupe.cluster.sharding.passivation.max-active-entities to the most entities of a type per node, or 0 for no cap.");
        }
    }

    private static Factory factoryType(String beanName, Method method) {
        final ResolvableType returnType = ResolvableType.forMethodReturnType(method);
        final String advice = "Make " + describe(method) + " return Function<EntityContext<M>, Behavior<M>> or Function<String, Behavior<M>>"
            + " with the entity's message type M, or remove @TroupeEntity from it.";
        if (!Function.class.equals(returnType.toClass())) {
            throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' must return an entity's behavior factory, but "
                + describe(method) + " returns " + returnType + ".", advice);
        }
        final ResolvableType input = returnType.getGeneric(0);
        final ResolvableType behavior = returnType.getGeneric(1);
        final ResolvableType message = Behavior.class.equals(behavior.toClass()) ? behavior.getGeneric(0) : ResolvableType.NONE;
        final boolean ofContext = EntityContext.class.equals(input.toClass());
        final boolean ofId = String.class.equals(input.toClass());
        if (message.resolve() == null || message.getType() instanceof java.lang.reflect.WildcardType || !(ofContext || ofId)
            || (ofContext && !message.toClass().equals(input.getGeneric(0).toClass()))) {
            throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' returns " + returnType + " from " + describe(method)
                + ": its EntityRefFactory needs the entity's message type, from a function of EntityContext<M> or String to Behavior<M>.",
                advice);
        }
        return new Factory(message, ofContext);
    }

    /** @return the stop message, or null for none */
    private static Object stopMessage(String beanName, Class<?> type, Class<?> messageType) {
        if (type == void.class || type == Void.class) {
            return null;
        }
        final String action = "Give @TroupeEntity(stopMessage) a subtype of " + messageType.getName()
            + " that is an enum with one constant, has a public static final INSTANCE, or a public no-argument constructor.";
        if (!messageType.isAssignableFrom(type)) {
            throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' has the stop message " + type.getName()
                + ", which is not a " + messageType.getName() + ": the entities could not receive it.", action);
        }
        if (type.isEnum()) {
            final Object[] constants = type.getEnumConstants();
            if (constants.length != 1) {
                throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' has the stop message enum " + type.getName()
                    + " with " + constants.length + " constants: which one is the stop message is not clear.", action);
            }
            return constants[0];
        }
        try {
            final Field instance = type.getField("INSTANCE");
            if (Modifier.isStatic(instance.getModifiers()) && type.isAssignableFrom(instance.getType()) && instance.get(null) != null) {
                return instance.get(null);
            }
        } catch (NoSuchFieldException | IllegalAccessException ignored) {
            // fall through to the constructor
        }
        try {
            final Constructor<?> c = type.getConstructor();
            return c.newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' has the stop message " + type.getName()
                + ", which cannot be made: " + e, action, e);
        }
    }
}
