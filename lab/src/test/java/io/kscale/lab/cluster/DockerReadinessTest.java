package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DockerReadinessTest {

    @Test
    void shouldNotBeReadyWithoutAnEngine() {
        DockerReadiness readiness = new FakeEngine().readiness(null);

        assertThat(readiness.ready()).isFalse();
        assertThat(readiness.engineAnswers()).isFalse();
        assertThat(readiness.reason()).contains("no Docker engine answered");
    }

    @Test
    void shouldPreferThePresentOfficialImage() {
        FakeEngine engine = new FakeEngine().answering().withImage(DockerKafkaCluster.DEFAULT_IMAGE)
                .withImage(FakeEngine.OFFLINE_IMAGE).withImage(DockerReadiness.RYUK_IMAGE);

        assertThat(engine.readiness(null).image()).isEqualTo(DockerKafkaCluster.DEFAULT_IMAGE);
        assertThat(engine.registryQuestions).as("registry asked although the image is present").isZero();
    }

    @Test
    void shouldTakeTheOfflineImageWhenTheOfficialOneIsAbsent() {
        FakeEngine engine = new FakeEngine().answering().withImage(FakeEngine.OFFLINE_IMAGE)
                .withImage(DockerReadiness.RYUK_IMAGE);

        assertThat(engine.readiness(null).image()).isEqualTo(FakeEngine.OFFLINE_IMAGE);
    }

    @Test
    void shouldPullTheOfficialImageOnlyWhenItsRegistryAnswers() {
        FakeEngine online = new FakeEngine().answering().withRegistryImage(DockerKafkaCluster.DEFAULT_IMAGE)
                .withRegistryImage(DockerReadiness.RYUK_IMAGE);
        FakeEngine offline = new FakeEngine().answering();

        assertThat(online.readiness(null).image()).isEqualTo(DockerKafkaCluster.DEFAULT_IMAGE);
        DockerReadiness none = offline.readiness(null);
        assertThat(none.ready()).isFalse();
        assertThat(none.engineAnswers()).isTrue();
        assertThat(none.reason()).contains(DockerKafkaCluster.DEFAULT_IMAGE, FakeEngine.OFFLINE_IMAGE,
                DockerReadiness.BUILD_COMMAND);
    }

    @Test
    void shouldTakeARequestedImageOnlyWhenPresentOrPullable() {
        FakeEngine engine = new FakeEngine().answering().withImage("mirror.example.org/kafka:4.4.0")
                .withImage(DockerKafkaCluster.DEFAULT_IMAGE).withImage(DockerReadiness.RYUK_IMAGE);

        assertThat(engine.readiness("mirror.example.org/kafka:4.4.0").image()).isEqualTo("mirror.example.org/kafka:4.4.0");
        DockerReadiness absent = engine.readiness("other/kafka:9");
        assertThat(absent.ready()).as("never falls back to another image than the one asked for").isFalse();
        assertThat(absent.reason()).contains("other/kafka:9", DockerKafkaCluster.IMAGE_PROPERTY);
    }

    @Test
    void shouldAskToDisableRyukWhenItsImageCannotBeHad() {
        FakeEngine engine = new FakeEngine().answering().withImage(FakeEngine.OFFLINE_IMAGE);

        DockerReadiness withRyuk = engine.readiness(null);
        DockerReadiness withoutRyuk = DockerReadiness.check(engine, null, () -> FakeEngine.OFFLINE_IMAGE, true);

        assertThat(withRyuk.ready()).isFalse();
        assertThat(withRyuk.reason()).contains(DockerReadiness.RYUK_IMAGE, "TESTCONTAINERS_RYUK_DISABLED=true");
        assertThat(withoutRyuk.image()).isEqualTo(FakeEngine.OFFLINE_IMAGE);
    }
}
