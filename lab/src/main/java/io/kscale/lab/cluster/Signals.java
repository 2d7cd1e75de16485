package io.kscale.lab.cluster;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals that {@link Process} has no method for (STOP, CONT) through {@code kill}. */
final class Signals {

    private Signals() {
    }

    /** Sends {@code SIG<name>} to a process; returns whether {@code kill} succeeded. */
    static boolean send(String name, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run 'kill -" + name + " " + pid + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
