package dev.troupe.it.peer;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.cluster.sharding.EntityRefFactory;
import dev.troupe.spring.cluster.sharding.TroupeEntity;

import java.util.function.Function;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The kind of application a user's test starts in a {@code TroupeNodeContainer}: a Boot app with the
 * Troupe starter, one actor bean, and the serializers of its messages. Run in a container by
 * {@code TroupeNodeContainerIT}. With {@code troupe.persistence.enabled=true} on a cluster, each echo
 * is also an event of a durable {@link Tally} (the embedded H2 default), so the persistence meters
 * have events, batches and recoveries.
 */
@SpringBootApplication
public class PeerNodeApplication {

    public static void main(String[] args) {
        final SpringApplication app = new SpringApplication(PeerNodeApplication.class);
        // durable entities only where a test asks for them (TROUPE_PERSISTENCE_ENABLED=true: DashboardQueriesIT)
        app.setDefaultProperties(java.util.Map.of("troupe.persistence.enabled", "false"));
        app.run(args);
    }

    /**
     * Serializers of this package's messages (Jackson, allow-listed), shared with the test's node,
     * beside the cluster's and sharding's own (the node can run with troupe.cluster.enabled=true).
     */
    public static SerializerRegistry serializers() {
        return ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()))
                .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.it.peer").build())
                .build();
    }

    @Bean
    SerializerRegistry troupeSerializers() {
        return serializers();
    }

    /**
     * Answers each echo; on a cluster it also hands the echo to one of 16 sharded {@code Echoes}
     * entities, so the sharding meters have an entity type with entities.
     */
    @Bean
    @TroupeActor(serviceKey = "echo")
    Behavior<Echo> echo(@Value("${troupe.system-name}") String systemName, ObjectProvider<EntityRefFactory<Echo>> echoes,
                        ObjectProvider<EntityRefFactory<Tally.Count>> tallies) {
        return Behaviors.setup(ctx -> {
            final EntityRefFactory<Echo> sharded = echoes.getIfAvailable();
            final EntityRefFactory<Tally.Count> tally = tallies.getIfAvailable();
            return Behaviors.receiveMessage(m -> {
                m.replyTo().tell(m.text() + " from " + systemName);
                if (sharded != null) {
                    sharded.entityRefFor("echoes-" + (m.text().hashCode() & 15)).tell(m);
                }
                if (tally != null) {
                    // one tally per burst of echoes ("r12-345": tally r12), so new ones keep recovering
                    final int dash = m.text().indexOf('-');
                    tally.entityRefFor(dash > 0 ? m.text().substring(0, dash) : m.text()).tell(Tally.Count.INSTANCE);
                }
                return Behaviors.same();
            });
        });
    }

    /** A sharded entity type, when the node runs on a cluster: entities that take echoes and do nothing. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("troupe.cluster.enabled")
    static class Sharded {
        @Bean
        @TroupeEntity(name = "Echoes")
        Function<String, Behavior<Echo>> echoes() {
            return id -> Behaviors.ignore();
        }
    }

    /** A durable entity type, when the node runs on a cluster with persistence on. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("troupe.cluster.enabled")
    @ConditionalOnBooleanProperty("troupe.persistence.enabled")
    static class Durable {
        @Bean
        @TroupeEntity(name = "Tally")
        Function<String, Behavior<Tally.Count>> tallies() {
            return Tally::create;
        }
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
