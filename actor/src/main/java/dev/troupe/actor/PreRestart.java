package dev.troupe.actor;

/** Delivered to the failed behavior before a supervisor restarts the actor. */
public final class PreRestart implements Signal {

    private static final PreRestart INSTANCE = new PreRestart();

    private PreRestart() {
    }

    /** @return the signal */
    public static PreRestart instance() {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "PreRestart";
    }
}
