package io.kscale.assignor.internals.layout;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the layout pure: only the JDK and the package itself, so no Kafka type, no logging and
 * no I/O framework reaches the rules or the codec (which needs only {@code java.nio}). The
 * assignor translates Kafka's metadata and logs what the layout reports.
 */
class LayoutArchitectureTest {

    private static final JavaClasses LAYOUT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kscale.assignor.internals.layout");

    @Test
    void shouldDependOnlyOnTheJdk() {
        ArchRule rule = classes().that().resideInAPackage("io.kscale.assignor.internals.layout..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.kscale.assignor.internals.layout..")
                .because("the layout is pure: the assignor adapts Kafka's types and logs what the layout reports");
        rule.check(LAYOUT);
    }
}
