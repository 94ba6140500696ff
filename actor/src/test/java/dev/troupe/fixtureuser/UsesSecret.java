package dev.troupe.fixtureuser;

import dev.troupe.fixturelib.internal.Secret;

/** Fixture: another module reaching into lib's internals. */
public class UsesSecret {
    public Object use() {
        return new Secret();
    }
}
