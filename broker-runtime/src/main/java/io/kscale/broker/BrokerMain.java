package io.kscale.broker;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Entry point of a broker child process: runs a Kafka main class ({@code kafka.Kafka} or
 * {@code kafka.tools.StorageTool}) and halts the JVM as soon as the parent process is gone.
 *
 * <p>The parent keeps the write end of this process's standard input open and never writes to
 * it. When the parent exits, however it exits (including {@code kill -9}), the operating system
 * closes that pipe and the read below returns end-of-stream; the broker then halts instead of
 * living on as an orphan that holds ports and data directories.
 *
 * <p>Usage: {@code BrokerMain <main class> [args...]}
 */
public final class BrokerMain {

    /** Exit status used when the parent disappeared; visible in the broker's log file. */
    static final int PARENT_GONE_STATUS = 3;

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: BrokerMain <main class> [args...]");
        }
        Thread watchdog = new Thread(() -> haltWhenStreamEnds(System.in), "kscale-parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }

    private static void haltWhenStreamEnds(InputStream parentPipe) {
        byte[] buffer = new byte[64];
        try {
            while (parentPipe.read(buffer) >= 0) {
                // The parent never writes; anything read is ignored.
            }
        } catch (IOException e) {
            // A broken pipe means the parent is gone, too.
        }
        System.err.println("kscale: parent process is gone, halting this broker");
        Runtime.getRuntime().halt(PARENT_GONE_STATUS);
    }
}
