package dev.troupe.it.peer;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.spring.TroupeActor;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The kind of application a user's test starts in a {@code TroupeNodeContainer}: a Boot app with the
 * Troupe starter, one actor bean, and the serializers of its messages. Run in a container by
 * {@code TroupeNodeContainerIT}.
 */
@SpringBootApplication
public class PeerNodeApplication {

    public static void main(String[] args) {
        SpringApplication.run(PeerNodeApplication.class, args);
    }

    /**
     * Serializers of this package's messages (Jackson, allow-listed), shared with the test's node,
     * beside the cluster's own (the node can run with troupe.cluster.enabled=true).
     */
    public static SerializerRegistry serializers() {
        return RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())
                .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.it.peer").build())
                .build();
    }

    @Bean
    SerializerRegistry troupeSerializers() {
        return serializers();
    }

    @Bean
    @TroupeActor(serviceKey = "echo")
    Behavior<Echo> echo(@Value("${troupe.system-name}") String systemName) {
        return Behaviors.receiveMessage(m -> {
            m.replyTo().tell(m.text() + " from " + systemName);
            return Behaviors.same();
        });
    }

    @Bean
    @TroupeActor
    Behavior<Locate> locator(ActorRef<Echo> echo) {
        return Behaviors.receiveMessage(m -> {
            m.replyTo().tell(new Located(echo));
            return Behaviors.same();
        });
    }
}
