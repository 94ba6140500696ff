/**
 * The Troupe test kit: {@code ActorTestKit}, {@code TestProbe}, {@code BehaviorTestKit}. Built on
 * the runtime's API and SPI only.
 */
module dev.troupe.actor.testkit {
    requires transitive dev.troupe.actor;

    exports dev.troupe.actor.testkit;
}
