package dev.troupe.actor.spi.instrumentation;

import java.util.Arrays;

/**
 * What a traced message carries beside it: its propagation headers (such as a W3C
 * {@code traceparent}), which a transport sends with the message to another node, and an object
 * the {@link MessageInstrumentation} keeps with the message on this node only (the sending
 * observation, so the processing one can name its parent without parsing a header).
 *
 * <p>Made by the instrumentation at a tell (or by a transport from a received header block) and
 * read by the instrumentation when the message is processed; only ever made when an
 * instrumentation is installed, so a system without one never allocates it. Written by one
 * thread before the message is queued, read by the actor's thread after; the mailbox's queue
 * gives the happens-before. Bounded: at most {@value #MAX_ENTRIES} entries.
 */
public final class MessageContext {

    /** Most entries one context holds; a transport refuses a header block with more. */
    public static final int MAX_ENTRIES = 8;

    private String[] entries;
    private int size;
    private Object local;

    /** An empty context. */
    public MessageContext() {
    }

    /**
     * Sets a header, replacing one of the same key. A header beyond the first
     * {@value #MAX_ENTRIES} keys is dropped (a tracer that injects more must not fail the tell).
     *
     * @param key the key, not empty
     * @param value the value
     * @throws IllegalArgumentException if the key is empty or either is null
     */
    public void put(String key, String value) {
        if (key == null || key.isEmpty() || value == null) {
            throw new IllegalArgumentException("a header needs a key and a value: " + key + "=" + value);
        }
        for (int i = 0; i < size; i++) {
            if (entries[2 * i].equals(key)) {
                entries[2 * i + 1] = value;
                return;
            }
        }
        if (size == MAX_ENTRIES) {
            return;
        }
        if (entries == null) {
            entries = new String[4];
        } else if (entries.length == 2 * size) {
            entries = Arrays.copyOf(entries, 4 * size);
        }
        entries[2 * size] = key;
        entries[2 * size + 1] = value;
        size++;
    }

    /**
     * @param key a key
     * @return its value, or null
     */
    public String get(String key) {
        for (int i = 0; i < size; i++) {
            if (entries[2 * i].equals(key)) {
                return entries[2 * i + 1];
            }
        }
        return null;
    }

    /** @return the number of headers */
    public int size() {
        return size;
    }

    /**
     * @param i an index below {@link #size()}
     * @return the key of header {@code i}
     */
    public String key(int i) {
        checkIndex(i);
        return entries[2 * i];
    }

    /**
     * @param i an index below {@link #size()}
     * @return the value of header {@code i}
     */
    public String value(int i) {
        checkIndex(i);
        return entries[2 * i + 1];
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("header " + i + " of " + size);
        }
    }

    /** @return what the instrumentation keeps with the message on this node; null for a message that came from another node */
    public Object local() {
        return local;
    }

    /** @param local what the instrumentation keeps with the message on this node (never sent) */
    public void local(Object local) {
        this.local = local;
    }

    @Override
    public String toString() {
        final StringBuilder b = new StringBuilder("MessageContext{");
        for (int i = 0; i < size; i++) {
            b.append(i == 0 ? "" : ", ").append(entries[2 * i]).append('=').append(entries[2 * i + 1]);
        }
        return b.append('}').toString();
    }
}
