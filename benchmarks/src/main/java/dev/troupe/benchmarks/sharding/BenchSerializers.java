package dev.troupe.benchmarks.sharding;

import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The Troupe side's binary serializers for the sharded benchmark's messages over the remote
 * transport (a ref is a 4-byte id, {@code Pong} no bytes), plus the cluster's and sharding's.
 */
final class BenchSerializers {

    private BenchSerializers() {
    }

    static SerializerRegistry registry() {
        return ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()))
            .register(ShardedMessaging.TroupeSide.Ping.class, PING)
            .register(ShardedMessaging.TroupeSide.Get.class, GET)
            .register(ShardedMessaging.TroupeSide.Pong.class, PONG)
            .build();
    }

    private static final Serializer<ShardedMessaging.TroupeSide.Ping> PING = new Serializer<>() {
        @Override
        public int id() {
            return 300;
        }

        @Override
        public int write(ShardedMessaging.TroupeSide.Ping m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return Serializer.writeRef(buffer, offset, m.replyTo(), ShardedMessaging.TroupeSide.Pong.class, refs);
        }

        @Override
        public ShardedMessaging.TroupeSide.Ping read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new ShardedMessaging.TroupeSide.Ping(Serializer.readRef(buffer, offset, refs));
        }
    };

    private static final Serializer<ShardedMessaging.TroupeSide.Get> GET = new Serializer<>() {
        @Override
        public int id() {
            return 301;
        }

        @Override
        public int write(ShardedMessaging.TroupeSide.Get m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return Serializer.writeRef(buffer, offset, m.replyTo(), Long.class, refs);
        }

        @Override
        public ShardedMessaging.TroupeSide.Get read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new ShardedMessaging.TroupeSide.Get(Serializer.readRef(buffer, offset, refs));
        }
    };

    private static final Serializer<ShardedMessaging.TroupeSide.Pong> PONG = new Serializer<>() {
        @Override
        public int id() {
            return 302;
        }

        @Override
        public int write(ShardedMessaging.TroupeSide.Pong m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return 0;
        }

        @Override
        public ShardedMessaging.TroupeSide.Pong read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return ShardedMessaging.TroupeSide.Pong.INSTANCE;
        }
    };
}
