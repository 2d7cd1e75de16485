package io.kscale.assignor.internals.store;

import java.util.Objects;

/**
 * What the store's WARNs tell the user, in the words of the adapter that owns the store. The
 * store is shared by adapters whose settings have other names, so the adapter hands these in
 * rather than the store importing its config class.
 *
 * <p>Example, the consumer assignor's: the topic setting is
 * {@code kscale.assignor.layout.store.topic}, so a WARN about a topic that is not compacted ends
 * "(or set kscale.assignor.layout.store.topic to a new topic, ...)"; and a failed read is followed
 * by "The leader goes on with the layouts its members report, ...".
 */
public final class StoreAdvice {

    private final String topicSetting;
    private final String whileUnreadable;

    /**
     * @param topicSetting the setting that names the store topic
     * @param whileUnreadable one or more sentences, without the final period, on what the adapter
     *     does while the store cannot be read
     */
    public StoreAdvice(String topicSetting, String whileUnreadable) {
        this.topicSetting = Objects.requireNonNull(topicSetting, "topicSetting");
        this.whileUnreadable = Objects.requireNonNull(whileUnreadable, "whileUnreadable");
    }

    /** @return the setting that names the store topic */
    public String topicSetting() {
        return topicSetting;
    }

    /** @return what the adapter does while the store cannot be read, without the final period */
    public String whileUnreadable() {
        return whileUnreadable;
    }
}
