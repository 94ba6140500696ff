package dev.troupe.spring.metrics;

import dev.troupe.actor.metrics.AllocationMetrics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The allocation series: simple names, a bound of 256 pairs with the rest under other, never going down. */
class AllocationSeriesTests {

    /** A source whose rows the test sets. */
    static final class Rows implements AllocationMetrics {
        volatile List<Row> rows = List.of();

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public List<Row> rows() {
            return rows;
        }

        @Override
        public long totalBytes() {
            return rows.stream().mapToLong(Row::bytes).sum();
        }
    }

    @Test
    void pairsAreNamedWithoutTheirPackageAndSummedWhenTheirSimpleNamesMeet() {
        final Rows source = new Rows();
        source.rows = List.of(
            new AllocationMetrics.Row("com.acme.Inventory", "com.acme.Inventory$Reserve", 1000, 10, 10),
            new AllocationMetrics.Row("org.other.Inventory", "com.acme.Inventory$Reserve", 500, 5, 5));
        final AllocationSeries series = new AllocationSeries(source);
        assertThat(series.seriesKeys()).containsExactly(List.of("Inventory", "Inventory$Reserve"));
        assertThat(series.bytes(List.of("Inventory", "Inventory$Reserve"))).isEqualTo(1500);
        assertThat(series.messages(List.of("Inventory", "Inventory$Reserve"))).isEqualTo(15);
    }

    @Test
    void beyondTheBoundPairsCountUnderOtherAndNoSeriesGoesDown() {
        final Rows source = new Rows();
        final List<AllocationMetrics.Row> rows = new ArrayList<>();
        for (int i = 0; i < TroupeMetrics.MAX_ALLOCATION_SERIES; i++) {
            rows.add(new AllocationMetrics.Row("a.B" + i, "a.M", 100, 1, 1));
        }
        source.rows = List.copyOf(rows);
        final AllocationSeries series = new AllocationSeries(source);
        assertThat(series.seriesKeys()).hasSize(TroupeMetrics.MAX_ALLOCATION_SERIES);

        // a new pair before the next refresh is not counted anywhere yet (so it cannot move later)
        rows.add(new AllocationMetrics.Row("a.Late", "a.M", 7000, 7, 7));
        source.rows = List.copyOf(rows);
        assertThat(series.bytes(List.of("other", "other"))).isZero();

        // at the refresh it goes under other, which now has a series: one more than the bound, never more
        final List<List<String>> keys = series.seriesKeys();
        assertThat(keys).hasSize(TroupeMetrics.MAX_ALLOCATION_SERIES + 1).contains(List.of("other", "other"))
            .doesNotContain(List.of("Late", "M"));
        rows.add(new AllocationMetrics.Row("a.Later", "a.M", 3000, 3, 3));
        source.rows = List.copyOf(rows);
        assertThat(series.seriesKeys()).hasSize(TroupeMetrics.MAX_ALLOCATION_SERIES + 1);
        assertThat(series.bytes(List.of("other", "other"))).isEqualTo(10_000);
        assertThat(series.messages(List.of("other", "other"))).isEqualTo(10);
        assertThat(series.bytes(List.of("B0", "M"))).isEqualTo(100);
    }
}
