package dev.troupe.spring.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * A peer node to connect to, from somewhere other than {@code troupe.remote.peers.*}: a
 * {@code @ServiceConnection} container ({@code TroupeNodeContainer} in {@code troupe-testcontainers})
 * or a bean of the application's own. Each bean adds (or, for a name already configured,
 * replaces) one peer, so {@code troupe.remote.refs.<bean>.peer} can name it; a bean turns the
 * remote transport on unless {@code troupe.remote.enabled=false}. Its secret, if any, is used when
 * {@code troupe.remote.secret} is not set.
 */
public interface TroupeConnectionDetails extends ConnectionDetails {

    /** @return the peer's name, as {@code troupe.remote.refs.<bean>.peer} refers to it */
    String peerName();

    /** @return the peer's address, {@code system@host:port} */
    String address();

    /** @return the shared secret the peer proves in the handshake, or null */
    default String secret() {
        return null;
    }

    /**
     * @param path an actor's path on the peer, such as {@code /user/inventory}
     * @return the actor's full path, for {@code RemoteTransport.actorRef}
     */
    default String actorPath(String path) {
        return "troupe://" + address() + (path.startsWith("/") ? path : "/user/" + path);
    }
}
