package io.kscale.lab.batching;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PacerTest {

    private static final long MS = 1_000_000;

    /** A clock that only moves when the pacer waits, or when a test says so. */
    private static final class FakeTicker implements Ticker {
        long now = 1_000 * MS;
        int waits;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void parkUntil(long deadlineNanos) {
            waits++;
            now = Math.max(now, deadlineNanos);
        }
    }

    /** When each of the first {@code count} records went, in ms from the start. */
    private static List<Double> sendTimes(SendSchedule schedule, FakeTicker ticker, int count) {
        Pacer pacer = new Pacer(schedule, ticker);
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pacer.awaitTurn(i);
            times.add(pacer.elapsedNanos() / (double) MS);
        }
        return times;
    }

    @Test
    void shouldSendTenRecordsBackToBackEveryTwoMillisecondsWhenBurstyAtFiveThousand() {
        FakeTicker ticker = new FakeTicker();

        List<Double> times = sendTimes(SendSchedule.of(SendRate.perSecond(5_000), SendPacing.BURSTY), ticker, 30);

        assertThat(times.subList(0, 10)).containsOnly(0.0);
        assertThat(times.subList(10, 20)).containsOnly(2.0);
        assertThat(times.subList(20, 30)).containsOnly(4.0);
        assertThat(ticker.waits).isEqualTo(2);
    }

    @Test
    void shouldScaleTheBurstWithTheRateAndKeepTheRateExact() {
        assertThat(SendSchedule.of(SendRate.perSecond(1_000), SendPacing.BURSTY).burstSize()).isEqualTo(2);
        assertThat(SendSchedule.of(SendRate.perSecond(20_000), SendPacing.BURSTY).burstSize()).isEqualTo(40);
        assertThat(SendSchedule.of(SendRate.perSecond(100), SendPacing.BURSTY).burstSize()).isEqualTo(1);
        // 1,000 records at 1,000/s: the last burst (records 998 and 999) is due at 998 ms.
        SendSchedule schedule = SendSchedule.of(SendRate.perSecond(1_000), SendPacing.BURSTY);
        assertThat(schedule.offsetNanos(999)).isEqualTo(998 * MS);
        // A rate that is no multiple of the burst gap does not drift: 3,000/s, bursts of 6 every 2 ms.
        SendSchedule odd = SendSchedule.of(SendRate.perSecond(3_000), SendPacing.BURSTY);
        assertThat(odd.burstSize()).isEqualTo(6);
        assertThat(odd.offsetNanos(3_000)).isEqualTo(1_000 * MS);
    }

    @Test
    void shouldSpaceRecordsEvenlyWhenEven() {
        List<Double> times = sendTimes(SendSchedule.of(SendRate.perSecond(5_000), SendPacing.EVEN), new FakeTicker(), 6);

        assertThat(times).containsExactly(0.0, 0.2, 0.4, 0.6, 0.8, 1.0);
    }

    @Test
    void shouldNeverWaitAtTheMaxRateWhateverThePacing() {
        FakeTicker ticker = new FakeTicker();

        List<Double> times = sendTimes(SendSchedule.of(SendRate.MAX, SendPacing.BURSTY), ticker, 1_000);

        assertThat(times).containsOnly(0.0);
        assertThat(ticker.waits).isZero();
    }

    @Test
    void shouldSendWhatALateSenderOwesBackToBack() {
        FakeTicker ticker = new FakeTicker();
        Pacer pacer = new Pacer(SendSchedule.of(SendRate.perSecond(5_000), SendPacing.EVEN), ticker);
        ticker.now += 1 * MS; // a send() blocked for 1 ms: records 0-5 are due

        List<Integer> waited = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int before = ticker.waits;
            pacer.awaitTurn(i);
            waited.add(ticker.waits - before);
        }

        assertThat(waited.stream().map(String::valueOf).collect(Collectors.joining())).isEqualTo("00000011");
    }
}
