package dev.troupe.fixturelib;

import dev.troupe.fixturelib.internal.Secret;

/** Fixture: an API type whose public signature leaks a runtime type. */
public interface Api {
    Secret self();

    /** @return the runtime behind the API: the root package may construct its runtime */
    static Api create() {
        return new Secret();
    }
}
