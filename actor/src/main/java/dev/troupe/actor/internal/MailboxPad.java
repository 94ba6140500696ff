package dev.troupe.actor.internal;

/**
 * 52 bytes ahead of every field of a {@link Mailbox} and so of an {@link ActorCell}: superclass
 * fields come first in a HotSpot object and the {@code int} fills the gap after the 12-byte header
 * (no field of a subclass can go there), so the mailbox's first field is 64 bytes from the start of
 * the object and no field of the cell shares a cache line with the object before it. A cell's
 * mailbox indices and scheduling status are written on every message it receives, and cells
 * spawned one after another are neighbours in memory: without the padding, the end of one cell and
 * the start of the next shared a line, and two actors running on two dispatcher threads wrote it in
 * turn. The 4- and 16-pair ping-pong on two threads ran at 0.85 of the padded rate (one pair, one
 * thread: no change). The cost is 56 bytes per actor, idle ones too (see docs/architecture.md,
 * "What an idle actor is made of").
 */
@SuppressWarnings("unused")
abstract class MailboxPad {
    private int p00;
    private long p01, p02, p03, p04, p05, p06;
}
