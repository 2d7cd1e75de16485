package io.kscale.streams;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the Kafka Streams adapter on the assignor module's pure core and shared internals: never
 * the consumer adapter ({@code io.kscale.assignor} itself, {@code internals.leader}, {@code wire},
 * {@code member}, {@code barrier}) nor the server adapter ({@code internals.server}). The assignor
 * module's {@code AdapterArchitectureTest} holds the same rule between its own adapters.
 */
class StreamsArchitectureTest {

    private static final JavaClasses STREAMS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kscale.streams");

    @Test
    void shouldDependOnlyOnThePureCoreAndTheSharedInternals() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.streams..")
                .should().dependOnClassesThat(resideInAPackage("io.kscale..")
                        .and(not(resideInAnyPackage("io.kscale.streams..",
                                "io.kscale.assignor.internals.layout..", "io.kscale.assignor.internals.placement..",
                                "io.kscale.assignor.internals.store..", "io.kscale.assignor.internals.metrics..",
                                "io.kscale.assignor.internals.lifecycle..")))
                        .as("are in kscale packages outside the pure core and the shared internals"))
                .because("adapters depend on the pure core and on shared internals, never on each other");
        rule.check(STREAMS);
    }
}
