package dev.troupe.actor;

/** Delivered once, after an actor stopped and all its children stopped. */
public final class PostStop implements Signal {

    private static final PostStop INSTANCE = new PostStop();

    private PostStop() {
    }

    /** @return the signal */
    public static PostStop instance() {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "PostStop";
    }
}
