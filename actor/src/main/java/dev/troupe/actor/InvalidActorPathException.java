package dev.troupe.actor;

/**
 * Text that {@link ActorPath#parse(String, int, int)} refuses, with the reason, so that a
 * transport can count refusals by reason without parsing messages.
 */
public class InvalidActorPathException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Why a path was refused. */
    public enum Reason {
        /** Not of the form {@code troupe://system[@host:port]/a/b}, or a name with a forbidden character. */
        MALFORMED("malformed"),
        /** Longer than the maximum length. */
        TOO_LONG("too-long"),
        /** More elements than the maximum depth. */
        TOO_DEEP("too-deep");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        /** @return the lowercase name, for logs and meter tags */
        public String tag() {
            return tag;
        }
    }

    private final Reason reason;

    /**
     * @param reason why
     * @param message what was wrong; never the whole text of an over-long path
     */
    public InvalidActorPathException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** @return why the path was refused */
    public Reason reason() {
        return reason;
    }
}
