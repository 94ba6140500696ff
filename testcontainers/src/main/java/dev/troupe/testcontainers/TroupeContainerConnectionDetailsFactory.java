package dev.troupe.testcontainers;

import dev.troupe.spring.autoconfigure.TroupeConnectionDetails;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@code @ServiceConnection} for a {@link TroupeNodeContainer}: the container becomes a peer of the
 * test's node ({@link TroupeConnectionDetails}), named {@link TroupeNodeContainer#getPeerName()}, at
 * {@link TroupeNodeContainer#getNodeAddress()}, with its secret.
 */
class TroupeContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<TroupeNodeContainer, TroupeConnectionDetails> {

    TroupeContainerConnectionDetailsFactory() {
        super(ANY_CONNECTION_NAME, "dev.troupe.spring.autoconfigure.TroupeConnectionDetails");
    }

    @Override
    protected TroupeConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<TroupeNodeContainer> source) {
        return new TroupeNodeConnectionDetails(source);
    }

    /** The container's peer name, address and secret, read once the container is there. */
    static final class TroupeNodeConnectionDetails extends ContainerConnectionDetails<TroupeNodeContainer>
            implements TroupeConnectionDetails {

        TroupeNodeConnectionDetails(ContainerConnectionSource<TroupeNodeContainer> source) {
            super(source);
        }

        @Override
        public String peerName() {
            return getContainer().getPeerName();
        }

        @Override
        public String address() {
            return getContainer().getNodeAddress();
        }

        @Override
        public String secret() {
            return getContainer().getSecret();
        }
    }
}
