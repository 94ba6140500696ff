package dev.troupe.spring.endpoint;

import org.jspecify.annotations.Nullable;

/**
 * Adds a section to the {@code troupe} endpoint: its value appears in the summary under
 * {@link #name()} and alone at {@code /actuator/troupe/<name>}. The remote transport adds
 * its peers this way. The value must be bounded in size and serializable to JSON.
 */
public interface TroupeEndpointContributor {

    /** @return the section's name, such as {@code remote} */
    String name();

    /** @return the section, built now */
    Object contribute();

    /**
     * A part of the section ({@code GET /actuator/troupe/<name>/<key>} and
     * {@code GET /actuator/troupe/<name>/<key>/<item>}), such as one entity type of
     * {@code sharding} and one entity of it. Bounded in size like the section.
     *
     * @param key the part, such as an entity type's name
     * @param item a part of the part, such as an entity id, or null
     * @return the part, or null (404) if there is no such part
     */
    default @Nullable Object detail(String key, @Nullable String item) {
        return null;
    }

    /**
     * A write operation on the section ({@code POST /actuator/troupe/<name>/<operation>}), off
     * unless the application grants the endpoint write access
     * ({@code management.endpoint.troupe.access=unrestricted}).
     *
     * @param operation the operation's name, such as {@code down}
     * @param address its argument, such as a member's address
     * @return the outcome, or null (404) if the section has no such operation
     */
    default @Nullable Object operate(String operation, String address) {
        return null;
    }
}
