package dev.troupe.cluster.sharding;

import java.util.Objects;

/**
 * The name and message type of one kind of sharded entity, such as {@code Sku}: one
 * {@link ClusterSharding#init} per key and node, and {@link ClusterSharding#entityRefFor} to
 * reach an entity of that kind. Every node of the cluster must use the same name for the same
 * kind. Immutable; equal when name and message class are.
 *
 * <pre>{@code
 * static final EntityTypeKey<Sku.Command> SKU = EntityTypeKey.create(Sku.Command.class, "Sku");
 * }</pre>
 *
 * @param <M> the entities' message type
 */
public final class EntityTypeKey<M> {

    /** The longest name accepted. */
    public static final int MAX_NAME_LENGTH = 100;

    private final Class<M> messageClass;
    private final String name;

    private EntityTypeKey(Class<M> messageClass, String name) {
        this.messageClass = messageClass;
        this.name = name;
    }

    /**
     * @param messageClass the entities' message type
     * @param name the kind's name: letters, digits, '-', '_' and '.', at most {@value #MAX_NAME_LENGTH} characters
     * @param <M> the message type
     * @return the key
     * @throws IllegalArgumentException if the name is empty, too long or has other characters
     */
    public static <M> EntityTypeKey<M> create(Class<M> messageClass, String name) {
        Objects.requireNonNull(messageClass, "messageClass");
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("entity type name must have 1 to " + MAX_NAME_LENGTH + " characters: '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!(c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.'))) {
                throw new IllegalArgumentException("invalid entity type name '" + name + "': use letters, digits, '-', '_' and '.' only");
            }
        }
        return new EntityTypeKey<>(messageClass, name);
    }

    /** @return the kind's name */
    public String name() {
        return name;
    }

    /** @return the entities' message type */
    public Class<M> messageClass() {
        return messageClass;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EntityTypeKey<?> k && k.name.equals(name) && k.messageClass.equals(messageClass);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + messageClass.hashCode();
    }

    @Override
    public String toString() {
        return "EntityTypeKey(" + name + ", " + messageClass.getName() + ")";
    }
}
