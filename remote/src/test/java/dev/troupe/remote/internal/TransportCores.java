package dev.troupe.remote.internal;

import dev.troupe.remote.RemoteTransport;

import java.lang.reflect.Field;

/** The {@link TransportCore} behind a {@link RemoteTransport}, for tests that look at associations and their connections. */
final class TransportCores {

    private TransportCores() {
    }

    static TransportCore of(RemoteTransport t) throws ReflectiveOperationException {
        final Field f = RemoteTransport.class.getDeclaredField("core");
        f.setAccessible(true);
        return (TransportCore) f.get(t);
    }
}
