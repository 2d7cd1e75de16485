package io.kscale.assignor.internals.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the broker-side adapter off the consumer (classic) adapter's public classes, so that it can
 * run inside a broker and change without the classic adapter changing (DESIGN.md, "adapters never
 * depend on each other"). Which packages it may use (the pure core and the shared internals, such
 * as the store clients both stores create through {@code internals.store.StoreClients}) is held by
 * {@code AdapterArchitectureTest}, for every adapter alike.
 */
class ServerArchitectureTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kscale.assignor.internals.server", "io.kscale.assignor");

    @Test
    void shouldNotUseTheClassicPublicClasses() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.assignor.internals.server..")
                .should().dependOnClassesThat().haveSimpleNameStartingWith("KeyPreservingAssignor")
                .orShould().dependOnClassesThat().haveSimpleNameStartingWith("ExpansionBarrier")
                .because("the broker-side adapter does not run on a consumer");
        rule.check(SERVER);
    }
}
