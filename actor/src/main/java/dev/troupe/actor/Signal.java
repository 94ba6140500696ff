package dev.troupe.actor;

/**
 * A lifecycle notification delivered to a behavior's signal handler, apart from its
 * messages: {@link PostStop}, {@link PreRestart}, {@link Terminated}, {@link ChildFailed}.
 */
public interface Signal {
}
