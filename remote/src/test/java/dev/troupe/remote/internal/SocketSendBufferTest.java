package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.InvalidSettingException;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code socketSendBuffer}: the outbound connection's socket gets the send buffer asked for, 256 KiB
 * by default (the kernel may double it, as Linux does; left to itself, Linux grows a loopback
 * connection's buffer to {@code net.ipv4.tcp_wmem}'s maximum, 4 MiB by default, at once, which is
 * what both tests would see without the option); values outside the allowed range fail the build of
 * the settings, naming it.
 */
class SocketSendBufferTest {

    private static final int ASKED = 256 * 1024;

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void close() {
        kit.close();
    }

    @Test
    void theOutboundSocketGetsTheSendBufferAskedFor() throws Exception {
        assertThat(sendBufferOfAConnection(RemoteTestKit.settings().socketSendBuffer(2 * ASKED))).isBetween(2 * ASKED, 4 * ASKED);
    }

    @Test
    void byDefaultItIs256KiB() throws Exception {
        assertThat(RemoteTestKit.settings().build().socketSendBuffer()).isEqualTo(ASKED);
        assertThat(sendBufferOfAConnection(RemoteTestKit.settings())).isBetween(ASKED, 2 * ASKED);
    }

    @Test
    void aSendBufferOutsideItsRangeNamesTheSetting() {
        assertThatThrownBy(() -> RemoteTestKit.settings().socketSendBuffer(4096).build())
            .isInstanceOf(InvalidSettingException.class).hasMessageContaining("socketSendBuffer");
        assertThatThrownBy(() -> RemoteTestKit.settings().socketSendBuffer(-1).build())
            .isInstanceOf(InvalidSettingException.class).hasMessageContaining("socketSendBuffer");
        assertThat(RemoteTestKit.settings().socketSendBuffer(0).build().socketSendBuffer()).isZero();
    }

    /** @return SO_SNDBUF of alpha's connection to beta once a message crossed it */
    private int sendBufferOfAConnection(RemoteSettings.Builder alphaSettings) throws Exception {
        final ActorSystem betaSystem = ActorSystem.create("beta");
        final AtomicInteger received = new AtomicInteger();
        final ActorRef<String> sink = betaSystem.spawn(Behaviors.<String>receiveMessage(m -> {
            received.incrementAndGet();
            return Behaviors.same();
        }), "sink");
        final RemoteTransport beta = kit.node(betaSystem, RemoteTestKit.settings());
        beta.publish(sink, String.class);
        final RemoteTransport alpha = kit.node("alpha", alphaSettings);
        alpha.actorRef(beta.addressOf(sink).toString(), String.class).tell("hello");
        RemoteTestKit.await("the message crossed", Duration.ofSeconds(10), () -> received.get() == 1);
        final Association toBeta = TransportCores.of(alpha).associations.get(beta.addressOf(sink).root(), true);
        final Channel ch = toBeta.connection.channel();
        assertThat(ch).isNotNull();
        return ch.config().getOption(ChannelOption.SO_SNDBUF);
    }
}
