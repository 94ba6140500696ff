package dev.troupe.spring.endpoint;

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
}
