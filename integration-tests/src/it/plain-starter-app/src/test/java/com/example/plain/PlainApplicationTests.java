package com.example.plain;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlainApplicationTests {

    @Test
    void theStarterAloneGivesAnActorSystemAndActorBeansWithoutTheTransport() throws Exception {
        try (ConfigurableApplicationContext context = SpringApplication.run(PlainApplication.class)) {
            @SuppressWarnings("unchecked")
            ActorRef<PlainApplication.Greet> greeter = context.getBean("greeterRef", ActorRef.class);
            String reply = AskPattern.<PlainApplication.Greet, String>ask(greeter, r -> new PlainApplication.Greet("user", r),
                    Duration.ofSeconds(10), context.getBean(ActorSystem.class)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(reply).isEqualTo("hello user");
            // The core starter brings Micrometer, and neither the transport nor Netty: a local-only
            // application has no Netty on its class path (troupe-spring-boot-starter-remote adds them).
            assertThat(Class.forName("io.micrometer.core.instrument.MeterRegistry")).isNotNull();
            assertThatThrownBy(() -> Class.forName("dev.troupe.remote.RemoteTransport")).isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> Class.forName("io.netty.channel.Channel")).isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> Class.forName("dev.troupe.cluster.Cluster")).isInstanceOf(ClassNotFoundException.class);
        }
    }
}
