package dev.troupe.spring.cluster.sharding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code @Bean} method returning a sharded entity's behavior factory: the starter
 * initializes cluster sharding for the entity type on this node and registers an injectable
 * {@link EntityRefFactory EntityRefFactory&lt;M&gt;} bean for it. The factory is a
 * {@code Function<EntityContext<M>, Behavior<M>>} or a {@code Function<String, Behavior<M>>} of
 * the entity id.
 *
 * <pre>{@code
 * @Bean
 * @TroupeEntity(name = "Sku", stopMessage = Sku.Stop.class)
 * Function<EntityContext<Sku.Command>, Behavior<Sku.Command>> sku() {
 *     return ctx -> Sku.create(ctx.entityId());
 * }
 *
 * // elsewhere
 * SkuController(EntityRefFactory<Sku.Command> skus) { ... skus.entityRefFor("A-1").tell(...) ... }
 * }</pre>
 *
 * <p>The factory bean is named {@code <beanName>RefFactory} and carries the qualifier
 * {@code <beanName>}. Shards, passivation, buffers and hand-off take the
 * {@code troupe.cluster.sharding.*} properties, which every node must share. Sharding needs the
 * cluster ({@code troupe.cluster.enabled=true}); declare the bean on every node of the cluster,
 * or on every node with {@link #role()} and on those that send to the entities.
 *
 * <p>Startup fails, naming the bean, when the return type is neither factory or lacks its message
 * type, the name is invalid or used by two beans, or the stop message cannot be made.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TroupeEntity {

    /**
     * @return the entity type's name, the same on every node: letters, digits, '-', '_' and '.';
     *         empty means the bean name
     */
    String name() default "";

    /**
     * @return the cluster role whose members host the entities (others forward to them); empty means every member
     */
    String role() default "";

    /**
     * The class of the message an entity receives, after every message sent before it, when it is
     * handed off to another node or passivated; the entity saves what it must and stops. An enum
     * with one constant, a class with a {@code public static final INSTANCE} of its type, or a
     * class with a public no-argument constructor; it must be a message type of the entity.
     * Without one ({@code void.class}), entities are stopped at once and messages still in their
     * mailbox become dead letters: set one for a hand-off that loses nothing.
     *
     * @return the stop message's class, or {@code void.class} for none
     */
    Class<?> stopMessage() default void.class;

    /**
     * @return the number of shards, the same on every node; 0 means {@code troupe.cluster.sharding.number-of-shards}
     */
    int numberOfShards() default 0;
}
