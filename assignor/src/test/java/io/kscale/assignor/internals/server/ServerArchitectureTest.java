package io.kscale.assignor.internals.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the broker-side adapter apart from the consumer (classic) adapter: it depends on the pure
 * layout and placement code, Kafka's API and logging only, so that it can run inside a broker and
 * change without the classic adapter changing (DESIGN.md, "adapters never depend on each other").
 */
class ServerArchitectureTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kscale.assignor.internals.server", "io.kscale.assignor");

    @Test
    void shouldNotDependOnTheClassicAdapter() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.assignor.internals.server..")
                .should().dependOnClassesThat().resideInAnyPackage("io.kscale.assignor.internals.leader..",
                        "io.kscale.assignor.internals.wire..", "io.kscale.assignor.internals.member..",
                        "io.kscale.assignor.internals.barrier..", "io.kscale.assignor.internals.store..",
                        "io.kscale.assignor.internals.metrics..")
                .because("the broker-side adapter shares only the pure core with the classic adapter");
        rule.check(SERVER);
    }

    @Test
    void shouldNotUseTheClassicPublicClasses() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.assignor.internals.server..")
                .should().dependOnClassesThat().haveSimpleNameStartingWith("KeyPreservingAssignor")
                .orShould().dependOnClassesThat().haveSimpleNameStartingWith("ExpansionBarrier")
                .because("the broker-side adapter does not run on a consumer");
        rule.check(SERVER);
    }
}
