package dev.troupe.actor;

/** A {@link Terminated} for a watched child that stopped because it failed. */
public final class ChildFailed extends Terminated {

    private final Throwable cause;

    /**
     * @param ref the child
     * @param cause the failure that stopped it
     */
    public ChildFailed(ActorRef<Void> ref, Throwable cause) {
        super(ref);
        this.cause = cause;
    }

    /** @return the failure that stopped the child */
    public Throwable cause() {
        return cause;
    }

    @Override
    public String toString() {
        return "ChildFailed(" + ref().path() + ", " + cause + ")";
    }
}
