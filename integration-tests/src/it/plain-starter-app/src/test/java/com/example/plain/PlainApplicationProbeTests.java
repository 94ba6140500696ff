package com.example.plain;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.spring.test.AutoConfigureTroupeTestKit;
import dev.troupe.spring.test.TroupeActorProbe;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** troupe-spring-boot-test in a user's build: the greeter bean's actor replaced by a probe, and the test kit on the context's system. */
@SpringBootTest
@AutoConfigureTroupeTestKit
class PlainApplicationProbeTests {

    @TroupeActorProbe
    TestProbe<PlainApplication.Greet> greeter;

    @Autowired
    ActorRef<PlainApplication.Greet> greeterRef;

    @Autowired
    ActorTestKit testKit;

    @Test
    void theGreeterBeanIsTheProbesRef() {
        TestProbe<String> replies = testKit.createTestProbe();
        greeterRef.tell(new PlainApplication.Greet("user", replies.ref()));
        PlainApplication.Greet greet = greeter.expectMessageClass(PlainApplication.Greet.class);
        assertThat(greet.name()).isEqualTo("user");
        greet.replyTo().tell("hello from the probe");
        replies.expectMessage("hello from the probe");
    }
}
