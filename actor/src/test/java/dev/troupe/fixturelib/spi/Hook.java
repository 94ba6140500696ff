package dev.troupe.fixturelib.spi;

import dev.troupe.fixturelib.internal.Secret;

/** Fixture: an SPI type that leans on the runtime, closing a cycle spi -> internal -> spi. */
public class Hook {
    public Secret secret;
}
