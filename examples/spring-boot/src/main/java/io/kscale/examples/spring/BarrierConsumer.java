package io.kscale.examples.spring;

import io.kscale.assignor.ExpansionBarrier;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * A Consumer whose poll goes through an ExpansionBarrier; every other call (commits, seeks,
 * pause and resume, wakeup, metrics, groupMetadata, enforceRebalance) goes to the consumer itself.
 */
final class BarrierConsumer {

    private BarrierConsumer() {
    }

    /**
     * @param consumer the consumer Spring's factory created
     * @param config   the settings it was created with: the barrier reads its kscale.barrier.* keys,
     *                 group.protocol and, on the consumer protocol, the connection settings from them
     */
    @SuppressWarnings("unchecked")
    static <K, V> Consumer<K, V> wrap(Consumer<K, V> consumer, Map<String, Object> config) {
        ExpansionBarrier<K, V> barrier = ExpansionBarrier.wrap(consumer, config);
        return (Consumer<K, V>) Proxy.newProxyInstance(Consumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "poll":
                            // poll(Duration), and poll(long) on kafka-clients before 4.0: no poll bypasses the barrier.
                            return barrier.poll(args[0] instanceof Duration timeout
                                    ? timeout : Duration.ofMillis((Long) args[0]));
                        case "close":
                            // close(), close(Duration) or close(CloseOptions): the barrier's metrics go,
                            // then the consumer closes.
                            barrier.close();
                            break;
                        case "equals":
                            // The container holds the proxy, which must equal itself: the consumer's
                            // equals would say it does not.
                            return proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        default:
                            break;
                    }
                    // Every other call, toString and any default method included, runs on the consumer.
                    try {
                        return method.invoke(consumer, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause(); // the consumer's own exception, e.g. WakeupException
                    }
                });
    }
}
