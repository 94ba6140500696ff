package dev.troupe.cluster.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Senders, one thread per node, telling {@link Ledger.Add}s to a fixed set of entities through
 * each node's entity refs until a total is reached. Each message has a unique sequence number;
 * message {@code s} goes to entity {@code s % entities}. Senders pace themselves (a short park
 * every few messages) so membership changes happen while traffic flows; the pace is not
 * something any test asserts.
 */
final class Traffic {

    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final int total;
    private final int entities;
    private final Ledger ledger;
    private final List<Sender> senders = new ArrayList<>();

    Traffic(int total, int entities, Ledger ledger) {
        this.total = total;
        this.entities = entities;
        this.ledger = ledger;
    }

    static String entityId(int e) {
        return "e-" + e;
    }

    /** Starts a sender on a node. */
    Sender start(ClusterSharding sharding, String node) {
        @SuppressWarnings("unchecked")
        final EntityRef<Counter.Command>[] refs = new EntityRef[entities];
        for (int e = 0; e < entities; e++) {
            refs[e] = sharding.entityRefFor(Counter.KEY, entityId(e));
        }
        final Sender s = new Sender(refs, node);
        senders.add(s);
        s.start();
        return s;
    }

    /** @return messages handed to a tell so far */
    int sent() {
        return sent.get();
    }

    /** @return whether every message was sent */
    boolean done() {
        return sent.get() >= total;
    }

    void join() throws InterruptedException {
        for (Sender s : senders) {
            s.join(60_000);
        }
    }

    final class Sender extends Thread {
        private final EntityRef<Counter.Command>[] refs;
        private volatile boolean stop;
        private volatile boolean stopped;

        Sender(EntityRef<Counter.Command>[] refs, String node) {
            super("sender-" + node);
            this.refs = refs;
            setDaemon(true);
        }

        /** Stops after the message in hand; returns once the sender sends no more. */
        void halt() throws InterruptedException {
            stop = true;
            join(60_000);
        }

        boolean stopped() {
            return stopped;
        }

        @Override
        public void run() {
            int mine = 0;
            while (!stop) {
                final int s = next.getAndIncrement();
                if (s >= total) {
                    break;
                }
                final int e = s % entities;
                ledger.sent(e);
                refs[e].tell(new Ledger.Add(s));
                sent.incrementAndGet();
                if (++mine % 20 == 0) {
                    LockSupport.parkNanos(200_000); // pace, see the class comment
                }
            }
            stopped = true;
        }
    }
}
