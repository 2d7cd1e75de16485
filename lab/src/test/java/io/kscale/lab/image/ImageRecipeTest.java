package io.kscale.lab.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageRecipeTest {

    @TempDir
    Path dir;

    @Test
    void shouldNameTheImageByKafkaVersionAndAHashOfItsInputs() throws Exception {
        List<Path> jars = jars("kafka_2.13-4.4.0.jar", "kafka-clients-4.4.0.jar");

        ImageRecipe recipe = new ImageRecipe("bookworm", jars);

        assertThat(recipe.kafkaVersion()).isEqualTo("4.4.0");
        assertThat(recipe.imageTag()).matches("kscale/kafka:4\\.4\\.0-[0-9a-f]{12}");
        assertThat(recipe.baseTag()).matches("kscale/debian-jre:bookworm-[0-9a-f]{12}");
        assertThat(new ImageRecipe("bookworm", jars).imageTag()).as("same inputs, same tag").isEqualTo(recipe.imageTag());
    }

    @Test
    void shouldGiveANewTagWhenAnyInputChanges() throws Exception {
        List<Path> jars = jars("kafka_2.13-4.4.0.jar", "kafka-clients-4.4.0.jar");
        ImageRecipe before = new ImageRecipe("bookworm", jars);

        Files.writeString(jars.get(1), "patched");
        ImageRecipe changedJar = new ImageRecipe("bookworm", jars);
        ImageRecipe otherSuite = new ImageRecipe("trixie", jars);

        assertThat(changedJar.imageTag()).isNotEqualTo(before.imageTag());
        assertThat(changedJar.baseTag()).as("the base has no jars").isEqualTo(before.baseTag());
        assertThat(otherSuite.baseTag()).isNotEqualTo(before.baseTag());
        assertThat(otherSuite.imageTag()).as("a new base is a new image").isNotEqualTo(before.imageTag());
    }

    @Test
    void shouldUseTheBrokerJarsOfThisBuild() {
        ImageRecipe current = ImageRecipe.current();

        assertThat(current.kafkaVersion()).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(current.imageTag()).startsWith(ImageRecipe.REPOSITORY + ":" + current.kafkaVersion() + "-");
        assertThat(current.jars()).isNotEmpty().allMatch(Files::isRegularFile);
    }

    @Test
    void shouldRefuseJarsWithoutExactlyOneBroker() throws Exception {
        assertThatThrownBy(() -> new ImageRecipe("bookworm", jars("kafka-clients-4.4.0.jar")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kafka_2.13");
    }

    private List<Path> jars(String... names) throws Exception {
        List<Path> jars = new java.util.ArrayList<>();
        for (String name : names) {
            jars.add(Files.writeString(dir.resolve(name), name));
        }
        return jars;
    }
}
