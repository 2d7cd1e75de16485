package io.kscale.lab.cluster;

import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

class ContainerRemovalTest {

    private static final String ID = "0af64bf5f503c0ffee";

    /** An engine that holds containers and refuses the first {@code refusals} removals. */
    private static class RefusingEngine implements ContainerRemoval.Engine {
        final Set<String> containers = new HashSet<>();
        int refusals;
        int removals;

        RefusingEngine(int refusals, String... containers) {
            this.refusals = refusals;
            this.containers.addAll(Set.of(containers));
        }

        @Override
        public boolean has(String containerId) {
            return containers.contains(containerId);
        }

        @Override
        public void forceRemove(String containerId) {
            removals++;
            if (refusals > 0) {
                refusals--;
                throw new IllegalStateException("removal of container " + containerId + " is already in progress");
            }
            containers.remove(containerId);
        }
    }

    @Test
    void shouldAskNothingMoreOfAContainerTheEngineNoLongerHas() {
        RefusingEngine engine = new RefusingEngine(0);

        assertThat(ContainerRemoval.removeLeftover(engine, ID, Duration.ZERO)).isTrue();
        assertThat(engine.removals).isZero();
    }

    @Test
    void shouldRemoveAContainerThatTestcontainersLeft() {
        RefusingEngine engine = new RefusingEngine(0, ID, "another");

        assertThat(ContainerRemoval.removeLeftover(engine, ID, Duration.ZERO)).isTrue();
        assertThat(engine.containers).containsExactly("another");
        assertThat(engine.removals).isEqualTo(1);
    }

    @Test
    void shouldTryAgainWhenTheEngineRefusesARemoval() {
        RefusingEngine engine = new RefusingEngine(ContainerRemoval.ATTEMPTS - 1, ID);

        assertThat(ContainerRemoval.removeLeftover(engine, ID, Duration.ZERO)).isTrue();
        assertThat(engine.containers).isEmpty();
        assertThat(engine.removals).isEqualTo(ContainerRemoval.ATTEMPTS);
    }

    @Test
    void shouldSayTheContainerIsLeftWhenEveryRemovalIsRefused() {
        RefusingEngine engine = new RefusingEngine(Integer.MAX_VALUE, ID);

        assertThat(ContainerRemoval.removeLeftover(engine, ID, Duration.ZERO)).isFalse();
        assertThat(engine.containers).containsExactly(ID);
        assertThat(engine.removals).isEqualTo(ContainerRemoval.ATTEMPTS);
    }

    @Test
    void shouldTryAgainWhenTheEngineCannotSayWhetherItHasTheContainer() {
        RefusingEngine engine = new RefusingEngine(0, ID) {
            private int questions;

            @Override
            public boolean has(String containerId) {
                if (questions++ == 0) {
                    throw new IllegalStateException("read timed out");
                }
                return super.has(containerId);
            }
        };

        assertThat(ContainerRemoval.removeLeftover(engine, ID, Duration.ZERO)).isTrue();
        assertThat(engine.containers).isEmpty();
    }

    @Test
    void shouldBeHowTheLabStopsEveryContainer() {
        noClasses().that().doNotBelongToAnyOf(ContainerRemoval.class)
                .should().accessTargetWhere(target(nameMatching("stop|close"))
                        .and(target(owner(assignableTo(GenericContainer.class)))))
                .because("Testcontainers' stop() can leave a container behind without a word")
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.kscale.lab"));
    }
}
