package dev.troupe.actor;

/**
 * A settings value that the runtime refuses, thrown by the settings builders when they
 * validate ({@code ActorSystemSettings.Builder.build()}, {@code RemoteSettings.Builder.build()},
 * {@code DispatcherSettings}'s constructor, ...).
 *
 * <p>{@link #setting()} names the builder method or record component that took the value,
 * such as {@code RemoteSettings.Builder.secret} or {@code DispatcherSettings.threads}, so
 * that an integration (the Spring Boot starter) can translate it into its own configuration
 * key without parsing the message. {@link #element()} names the member of a collection the
 * value belongs to (a dispatcher's or a peer's name), or is null.
 */
public class InvalidSettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String setting;
    private final String element;
    private final String problem;

    /**
     * @param setting the builder method or record component, e.g. {@code RemoteSettings.Builder.secret}
     * @param problem what is wrong and what is accepted, without the setting's name
     */
    public InvalidSettingException(String setting, String problem) {
        this(setting, null, problem);
    }

    /**
     * @param setting the builder method or record component, e.g. {@code DispatcherSettings.threads}
     * @param element the member of a collection setting the value belongs to (a dispatcher's name), or null
     * @param problem what is wrong and what is accepted, without the setting's name
     */
    public InvalidSettingException(String setting, String element, String problem) {
        super(element == null ? setting + ": " + problem : setting + " (" + element + "): " + problem);
        this.setting = setting;
        this.element = element;
        this.problem = problem;
    }

    /** @return the builder method or record component that took the value */
    public String setting() {
        return setting;
    }

    /** @return the member of a collection setting (a dispatcher's or peer's name), or null */
    public String element() {
        return element;
    }

    /** @return what is wrong, without the setting's name */
    public String problem() {
        return problem;
    }
}
