package io.kscale.assignor.internals.lifecycle;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.management.InstanceNotFoundException;
import javax.management.ListenerNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells an assignor that its consumer has closed. Kafka never closes a partition assignor (4.4's
 * {@code ClassicKafkaConsumer.close()} closes interceptors, deserializers and metrics, not
 * assignors), yet what an assignor registers in static state (its metrics, the consumer
 * assignor's entry in {@code MemberLayouts}) must go with its consumer. The one signal a consumer's close gives that
 * an assignor can observe: it unregisters its {@code kafka.consumer:type=app-info,id=<client.id>}
 * MBean, which the platform MBean server announces. So one listener, on the MBean server's
 * delegate, maps that announcement to the assignors of that client id and closes them.
 *
 * <p>Nothing here keeps an assignor alive: watched assignors are held weakly (a consumer dropped
 * without {@code close()} leaves a cleared reference, purged at the next registration or
 * announcement), and the listener is removed from the MBean server once no assignor is watched,
 * so that nothing there refers to this class loader afterwards.
 *
 * <p>Shared by the adapters (the consumer assignor, the Kafka Streams assignor's leader metrics),
 * so it depends on none of them. Other helpers that register metrics per consumer use it too: an
 * {@code ExpansionBarrier} registers a release of its metrics
 * ({@link #watch(String, Object, Runnable)}), which runs when its consumer closes, or at the next
 * purge once the barrier itself was collected (an application that replaced its barrier without
 * closing it), whichever comes first.
 *
 * <p>Limits: consumers in one JVM that share a client id (Kafka warns about it, and its own
 * app-info MBean collides too) are indistinguishable here: the first to close closes the
 * assignors of all. Those assignors go on working, without metrics. Without a platform MBean
 * server, nothing is watched, and metrics stay as before issue 11.
 */
public final class ConsumerCloseWatch {

    /** The JMX domain of a consumer's app-info MBean. */
    static final String CONSUMER_DOMAIN = "kafka.consumer";

    private static final Logger log = LoggerFactory.getLogger(ConsumerCloseWatch.class);
    private static final NotificationListener LISTENER = ConsumerCloseWatch::handle;
    /** Watched assignors by client id; guarded by its own lock, as is whether {@link #LISTENER} is registered. */
    private static final Map<String, List<Watch<?>>> WATCHED = new HashMap<>();
    private static boolean listening;

    private ConsumerCloseWatch() {
    }

    /**
     * Closes the assignor when the consumer with this client id closes. The assignor is held
     * weakly; {@code close} must not hold it either (a method reference such as
     * {@code KeyPreservingAssignor::close} does not), so that it stays package-private there.
     *
     * @param clientId the consumer's {@code client.id}, as handed to the assignor
     * @param assignor the assignor to close
     * @param close    what closing it means
     */
    public static <T> void watch(String clientId, T assignor, Consumer<? super T> close) {
        List<Runnable> collected;
        synchronized (WATCHED) {
            collected = purge();
            WATCHED.computeIfAbsent(clientId, id -> new ArrayList<>()).add(new Watch<>(assignor, close, null));
            if (!listening) {
                listening = addListener();
            }
        }
        runAll(collected, clientId);
    }

    /**
     * Runs {@code release} once, when the consumer with this client id closes or, if sooner, at
     * the first registration, announcement or count after {@code owner} was collected. The owner
     * is held weakly; {@code release} is held strongly, so it must not refer to the owner.
     *
     * @param clientId the consumer's {@code client.id}
     * @param owner what the release belongs to; {@link #unwatch} with it cancels the release
     * @param release what to do, e.g. closing the owner's metrics
     */
    public static void watch(String clientId, Object owner, Runnable release) {
        Runnable held = java.util.Objects.requireNonNull(release, "release");
        List<Runnable> collected;
        synchronized (WATCHED) {
            collected = purge();
            WATCHED.computeIfAbsent(clientId, id -> new ArrayList<>()).add(new Watch<>(owner, ignored -> held.run(), held));
            if (!listening) {
                listening = addListener();
            }
        }
        runAll(collected, clientId);
    }

    /** Stops watching the assignor (it was closed another way). */
    public static void unwatch(Object assignor) {
        List<Runnable> collected;
        synchronized (WATCHED) {
            WATCHED.values().forEach(watches -> watches.removeIf(watch -> watch.holds(assignor)));
            collected = purge();
        }
        runAll(collected, "(unwatch)");
    }

    /** @return how many assignors and other owners are watched; runs the releases of collected owners (tests) */
    public static int watched() {
        List<Runnable> collected;
        int watched;
        synchronized (WATCHED) {
            collected = purge();
            watched = WATCHED.values().stream().mapToInt(List::size).sum();
        }
        runAll(collected, "(collected)");
        return watched;
    }

    /** Runs releases outside the lock: they may close metrics or clients. */
    private static void runAll(List<Runnable> releases, String clientId) {
        for (Runnable release : releases) {
            try {
                release.run();
            } catch (RuntimeException e) {
                log.warn("Releasing what a collected owner of consumer {} registered failed", clientId, e);
            }
        }
    }

    private static void handle(Notification notification, Object handback) {
        if (!(notification instanceof MBeanServerNotification)
                || !MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        String clientId = consumerClientId(((MBeanServerNotification) notification).getMBeanName());
        if (clientId == null) {
            return;
        }
        List<Watch<?>> closing;
        List<Runnable> collected;
        synchronized (WATCHED) {
            List<Watch<?>> watches = WATCHED.remove(clientId);
            closing = watches == null ? List.of() : watches;
            collected = purge();
        }
        runAll(collected, clientId);
        // Outside the lock: closing releases store clients, which may block for a moment.
        for (Watch<?> watch : closing) {
            try {
                watch.close();
            } catch (RuntimeException e) {
                log.warn("Closing the assignor of consumer {} failed", clientId, e);
            }
        }
    }

    /** @return the client id of a consumer's app-info MBean, or null for any other MBean */
    public static String consumerClientId(ObjectName name) {
        if (name == null || !CONSUMER_DOMAIN.equals(name.getDomain()) || !"app-info".equals(name.getKeyProperty("type"))) {
            return null;
        }
        String id = name.getKeyProperty("id");
        if (id == null) {
            return null;
        }
        // Kafka quotes ids with characters ObjectName does not take as they are (Sanitizer.jmxSanitize).
        return id.startsWith("\"") ? ObjectName.unquote(id) : id;
    }

    /**
     * Drops cleared references and empty client ids; removes the listener once nothing is watched.
     * Under the lock.
     *
     * @return the releases of collected owners, to run outside the lock
     */
    private static List<Runnable> purge() {
        List<Runnable> collected = new ArrayList<>();
        for (Iterator<List<Watch<?>>> it = WATCHED.values().iterator(); it.hasNext(); ) {
            List<Watch<?>> watches = it.next();
            for (Iterator<Watch<?>> watch = watches.iterator(); watch.hasNext(); ) {
                Watch<?> next = watch.next();
                if (next.cleared()) {
                    watch.remove();
                    if (next.release != null) {
                        collected.add(next.release);
                    }
                }
            }
            if (watches.isEmpty()) {
                it.remove();
            }
        }
        if (WATCHED.isEmpty() && listening) {
            removeListener();
            listening = false;
        }
        return collected;
    }

    private static boolean addListener() {
        try {
            server().addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, LISTENER, null, null);
            return true;
        } catch (InstanceNotFoundException | RuntimeException e) {
            log.debug("No platform MBean server to watch for consumers closing; assignor metrics stay registered", e);
            return false;
        }
    }

    private static void removeListener() {
        try {
            server().removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, LISTENER);
        } catch (InstanceNotFoundException | ListenerNotFoundException | RuntimeException e) {
            log.debug("Could not remove the consumer close listener", e);
        }
    }

    private static MBeanServer server() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    /** One watched assignor (or other owner), held weakly, and how to close it. */
    private static final class Watch<T> {
        private final WeakReference<T> assignor;
        private final Consumer<? super T> close;
        /** What to run once the owner was collected, or null. */
        final Runnable release;

        Watch(T assignor, Consumer<? super T> close, Runnable release) {
            this.assignor = new WeakReference<>(assignor);
            this.close = close;
            this.release = release;
        }

        boolean cleared() {
            return assignor.get() == null;
        }

        boolean holds(Object candidate) {
            return assignor.get() == candidate;
        }

        void close() {
            T watched = assignor.get();
            if (watched != null) {
                close.accept(watched);
            } else if (release != null) {
                release.run();
            }
        }
    }
}
