package dev.troupe.benchmarks.remote;

import java.util.Locale;

/** What a ping-pong message carries. */
enum Shape {

    /** {@code Ping(seq, replyTo)}: a 64-bit number and a reply-to ref, answered with {@code Pong(seq)} (request/response). */
    REFS,

    /** A plain {@code Long}, answered with a {@code Long} to a ref the echo looked up once: no ref inside any message. */
    LONG;

    static Shape of(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    String label() {
        return this == REFS ? "Ping(seq, replyTo)" : "Long, no refs";
    }
}
