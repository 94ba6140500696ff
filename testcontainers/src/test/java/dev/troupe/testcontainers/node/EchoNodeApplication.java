package dev.troupe.testcontainers.node;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.spring.TroupeActor;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The kind of application a user's test runs in a {@code TroupeNodeContainer}: a Boot app with the
 * Troupe starter, one actor bean and the serializers of its messages, with Actuator's health endpoint.
 */
@SpringBootApplication
public class EchoNodeApplication {

    public static void main(String[] args) {
        SpringApplication.run(EchoNodeApplication.class, args);
    }

    /** Serializers of this package's messages (Jackson, allow-listed), the same on both nodes. */
    public static SerializerRegistry serializers() {
        return SerializerRegistry.builder()
                .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.testcontainers.node").build())
                .build();
    }

    @Bean
    SerializerRegistry troupeSerializers() {
        return serializers();
    }

    @Bean
    @TroupeActor
    Behavior<Echo> echo(@Value("${troupe.system-name}") String systemName) {
        return Behaviors.receiveMessage(m -> {
            m.replyTo().tell(m.text() + " from " + systemName);
            return Behaviors.same();
        });
    }
}
