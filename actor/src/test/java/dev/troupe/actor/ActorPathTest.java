package dev.troupe.actor;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ActorPathTest {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** {@code troupe://sys@host:1/e0000/e0001/...} of about {@code length} characters. */
    private static String deepPath(int length) {
        final StringBuilder sb = new StringBuilder(length + 16).append("troupe://sys@host:1/");
        for (int i = 0; sb.length() < length; i++) {
            sb.append(i == 0 ? "" : "/").append('e').append(i % 10_000);
        }
        return sb.toString();
    }

    @Test
    void textFormRoundTrips() {
        final ActorPath p = ActorPath.parse("troupe://shop@10.0.0.1:2552/user/orders/o-1");
        assertThat(p.system()).isEqualTo("shop");
        assertThat(p.host()).isEqualTo("10.0.0.1");
        assertThat(p.port()).isEqualTo(2552);
        assertThat(p.depth()).isEqualTo(3);
        assertThat(p.name()).isEqualTo("o-1");
        assertThat(p.parent().toString()).isEqualTo("troupe://shop@10.0.0.1:2552/user/orders");
        assertThat(p.root().toString()).isEqualTo("troupe://shop@10.0.0.1:2552/");
        assertThat(p.elementsString()).isEqualTo("user/orders/o-1");
        assertThat(p.toString()).isEqualTo("troupe://shop@10.0.0.1:2552/user/orders/o-1");
        assertThat(ActorPath.parse("troupe://shop@[::1]:2552/user").toString()).isEqualTo("troupe://shop@[::1]:2552/user");
        assertThat(ActorPath.parse("troupe://shop/user//a/").toString()).isEqualTo("troupe://shop/user/a");
        assertThat(ActorPath.root("shop").toString()).isEqualTo("troupe://shop/");
    }

    @Test
    void equalityCoversAddressElementsAndUid() {
        final ActorPath a = ActorPath.root("shop").child("user").child("a", 7);
        final ActorPath b = ActorPath.parse("troupe://shop/user/a").withUid(7);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(b.withUid(8));
        assertThat(a).isNotEqualTo(ActorPath.parse("troupe://shop/user/b").withUid(7));
        assertThat(a).isNotEqualTo(ActorPath.parse("troupe://other/user/a").withUid(7));
        assertThat(a).isNotEqualTo(a.withAddress("h", 1));
        assertThat(a.withAddress("h", 1).withoutAddress()).isEqualTo(a);
        assertThat(a.withAddress("h", 1).uid()).isEqualTo(7);
        assertThat(a.compareTo(b)).isZero();
    }

    @Test
    void parsingA64KiBPathIsLinearInTimeAndMemory() {
        final String small = deepPath(64 * 1024);
        final String large = deepPath(128 * 1024);
        ActorPath.parse(small).toString(); // warm up the code paths (class loading, JIT)
        final long before = allocated();
        final ActorPath p = ActorPath.parse(small);
        final long parsed = allocated() - before;
        final String rendered = p.toString();
        final long renderedBytes = allocated() - before - parsed;
        final long before2 = allocated();
        ActorPath.parse(large);
        final long parsedLarge = allocated() - before2;

        System.out.println("ActorPathTest: parse " + small.length() + " chars: " + parsed + " B, " + large.length() + " chars: "
            + parsedLarge + " B; render " + small.length() + " chars: " + renderedBytes + " B");
        assertThat(rendered).isEqualTo(small);
        // Per element: one path object and one name string. The quadratic form allocated the
        // text of every ancestor, about 300 MB for this path; linear is under 100 bytes per character.
        assertThat(parsed).as("bytes allocated to parse %d characters", small.length()).isLessThan(100L * small.length());
        assertThat((double) parsedLarge / parsed).as("twice the text, twice the memory").isBetween(1.5, 2.5);
        // Rendering: the element array, a builder of the exact size and the string.
        assertThat(renderedBytes).as("bytes allocated to render").isLessThan(8L * small.length() + 4096);
    }

    @Test
    void boundsAreCheckedBeforeAnyWork() {
        final String text = deepPath(64 * 1024);
        InvalidActorPathException refused = null;
        long cost = 0;
        for (int i = 0; i < 3; i++) { // the first rounds load and compile the code
            final long before = allocated();
            try {
                ActorPath.parse(text, 1024, 64);
            } catch (InvalidActorPathException e) {
                cost = allocated() - before;
                refused = e;
            }
        }
        assertThat(refused).isNotNull();
        assertThat(refused.reason()).isEqualTo(InvalidActorPathException.Reason.TOO_LONG);
        assertThat(refused.getMessage()).hasSizeLessThan(200);
        // the exception and its message (and stack trace), no copy of the text and no path built
        assertThat(cost).as("bytes allocated to refuse %d characters", text.length()).isLessThan(text.length() / 4);

        assertThatThrownBy(() -> ActorPath.parse(text, Integer.MAX_VALUE, 64))
            .isInstanceOfSatisfying(InvalidActorPathException.class,
                e -> assertThat(e.reason()).isEqualTo(InvalidActorPathException.Reason.TOO_DEEP));
    }

    @Test
    void limitsAreInclusive() {
        final String text = "troupe://sys/a/b/c";
        assertThat(ActorPath.parse(text, text.length(), 3).depth()).isEqualTo(3);
        assertThatThrownBy(() -> ActorPath.parse(text, text.length() - 1, 3))
            .isInstanceOfSatisfying(InvalidActorPathException.class,
                e -> assertThat(e.reason()).isEqualTo(InvalidActorPathException.Reason.TOO_LONG));
        assertThatThrownBy(() -> ActorPath.parse(text, text.length(), 2))
            .isInstanceOfSatisfying(InvalidActorPathException.class,
                e -> assertThat(e.reason()).isEqualTo(InvalidActorPathException.Reason.TOO_DEEP));
        // empty elements do not count
        assertThat(ActorPath.parse("troupe://sys/a//b/", 100, 2).depth()).isEqualTo(2);
    }

    @Test
    void malformedTextIsRefusedWithItsReason() {
        for (String bad : new String[] {null, "http://sys/a", "troupe://", "troupe://bad name/a", "troupe://sys@host/a",
            "troupe://sys@host:port/a", "troupe://sys/a b", "troupe://sys/a#b"}) {
            assertThatThrownBy(() -> ActorPath.parse(bad, 1000, 10))
                .as(String.valueOf(bad))
                .isInstanceOfSatisfying(InvalidActorPathException.class,
                    e -> assertThat(e.reason()).isEqualTo(InvalidActorPathException.Reason.MALFORMED));
        }
        final String longBad = "troupe://sys/" + "x".repeat(10_000) + " y";
        assertThatThrownBy(() -> ActorPath.parse(longBad))
            .isInstanceOf(InvalidActorPathException.class)
            .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(10_000));
    }

    @Test
    void aDeepPathBuiltByChildIsRenderedLinearly() {
        ActorPath p = ActorPath.root("sys");
        for (int i = 0; i < 20_000; i++) {
            p = p.child("n" + (i % 100));
        }
        assertThat(p.depth()).isEqualTo(20_000);
        final ActorPath deep = p;
        final long before = allocated();
        final String text = deep.toString();
        assertThat(allocated() - before).isLessThan(8L * text.length() + 4096);
        assertThat(ActorPath.parse(text)).isEqualTo(deep);
        assertThat(ActorPath.parse(text).hashCode()).isEqualTo(deep.hashCode());
    }

    /** A child of a parent whose text is already rendered is one concatenation, with the same text. */
    @Test
    void aChildOfARenderedParentRendersTheSameTextInOneStep() {
        final ActorPath spawner = ActorPath.root("idle").child("user").child("spawner");
        final ActorPath unrendered = spawner.child("e1", 5);
        assertThat(spawner.child("e0", 1).toString()).isEqualTo("troupe://idle/user/spawner/e0");
        assertThat(spawner.toString()).isEqualTo("troupe://idle/user/spawner");
        final ActorPath child = spawner.child("e1", 5);
        final long before = allocated();
        final String text = child.toString();
        // The string and its bytes only: no builder, no array of names.
        assertThat(allocated() - before).isLessThanOrEqualTo(24 + 16 + text.length() + 8);
        assertThat(text).isEqualTo("troupe://idle/user/spawner/e1").isEqualTo(unrendered.toString());
        assertThat(ActorPath.root("idle").child("user").toString()).isEqualTo("troupe://idle/user");
        assertThat(ActorPath.root("idle", "10.0.0.1", 2552).child("user").child("a").toString())
            .isEqualTo("troupe://idle@10.0.0.1:2552/user/a");
    }
}
