package io.kscale.assignor.internals.placement;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the placement engine pure, as Kafka's {@code checkstyle/import-control.xml} keeps its
 * modules apart: the Kafka Streams assignor and the consumer assignor translate Kafka's types,
 * the engine never sees them. A plain JUnit test over ArchUnit's API, so it runs on the Jupiter
 * engine like every other test here.
 */
class PlacementArchitectureTest {

    private static final JavaClasses ENGINE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kscale.assignor.internals.placement");

    @Test
    void shouldNotDependOnKafka() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.assignor.internals.placement..")
                .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
                .because("the placement engine is pure: adapters translate Kafka's types");
        rule.check(ENGINE);
    }

    @Test
    void shouldNotDependOnLogging() {
        ArchRule rule = noClasses().that().resideInAPackage("io.kscale.assignor.internals.placement..")
                .should().dependOnClassesThat().resideInAnyPackage("org.slf4j..")
                .because("the engine returns values; its callers log and adapt (AdapterArchitectureTest keeps the "
                        + "rest of kscale out)");
        rule.check(ENGINE);
    }
}
