package io.kscale.lab.cluster;

import java.util.HashSet;
import java.util.Set;

/** A {@link DockerEngine} that answers from sets, and counts the questions it sent to a registry. */
final class FakeEngine extends DockerEngine {

    static final String OFFLINE_IMAGE = "kscale/kafka:4.4.0-0123456789ab";

    private boolean answers;
    private final Set<String> images = new HashSet<>();
    private final Set<String> inRegistry = new HashSet<>();
    int registryQuestions;

    FakeEngine() {
        super(null);
    }

    FakeEngine answering() {
        answers = true;
        return this;
    }

    FakeEngine withImage(String image) {
        images.add(image);
        return this;
    }

    FakeEngine withRegistryImage(String image) {
        inRegistry.add(image);
        return this;
    }

    DockerReadiness readiness(String requestedImage) {
        return DockerReadiness.check(this, requestedImage, () -> OFFLINE_IMAGE, false);
    }

    @Override
    public boolean answers() {
        return answers;
    }

    @Override
    public boolean hasImage(String image) {
        return images.contains(image);
    }

    @Override
    public boolean registryHas(String image) {
        registryQuestions++;
        return inRegistry.contains(image);
    }
}
