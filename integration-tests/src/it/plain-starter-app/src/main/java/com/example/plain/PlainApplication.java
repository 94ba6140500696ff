package com.example.plain;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.spring.TroupeActor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class PlainApplication {

    public record Greet(String name, ActorRef<String> replyTo) {
    }

    public static void main(String[] args) {
        SpringApplication.run(PlainApplication.class, args);
    }

    @Bean
    @TroupeActor
    Behavior<Greet> greeter() {
        return Behaviors.receiveMessage(m -> {
            m.replyTo().tell("hello " + m.name());
            return Behaviors.same();
        });
    }
}
