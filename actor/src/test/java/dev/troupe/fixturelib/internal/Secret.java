package dev.troupe.fixturelib.internal;

import dev.troupe.fixturelib.Api;
import dev.troupe.fixturelib.spi.Hook;

/** Fixture: a runtime class that implements the API and uses the SPI (both allowed). */
public class Secret implements Api {
    public Hook hook;

    @Override
    public Secret self() {
        return this;
    }
}
