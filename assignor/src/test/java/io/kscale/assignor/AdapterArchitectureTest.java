package io.kscale.assignor;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the assignor module's adapters apart, so that each depends only on the pure core and on
 * the shared internals (docs/architecture.md, "The rule"):
 * <pre>
 *   pure core          layout, placement                 no other kscale package
 *   shared internals   store, metrics, lifecycle, time   the pure core and each other
 *   consumer adapter   leader, wire, member, barrier,    anything above, never the server adapter
 *                      the public consumer classes
 *   server adapter     server, KeyPreservingServerAssignor*   anything above, never the consumer adapter
 * </pre>
 * The Kafka Streams adapter, in its own module, has a check of its own
 * ({@code StreamsArchitectureTest}). What the pure core may use beyond kscale (no Kafka type in
 * placement, only the JDK in layout) is held by {@code PlacementArchitectureTest} and
 * {@code LayoutArchitectureTest}.
 */
class AdapterArchitectureTest {

    private static final String ROOT = "io.kscale.assignor";
    private static final String[] CORE = {ROOT + ".internals.layout..", ROOT + ".internals.placement.."};
    private static final String[] SHARED = {ROOT + ".internals.store..", ROOT + ".internals.metrics..",
        ROOT + ".internals.lifecycle..", ROOT + ".internals.time.."};
    private static final String[] CORE_AND_SHARED = concat(CORE, SHARED);

    /** The broker-side assignor's public classes: {@code KeyPreservingServerAssignor}, its config, their nested classes. */
    private static final DescribedPredicate<HasName> SERVER_PUBLIC =
            nameMatching("io\\.kscale\\.assignor\\.KeyPreservingServerAssignor[^.]*");

    private static final DescribedPredicate<JavaClass> SERVER_ADAPTER =
            resideInAPackage(ROOT + ".internals.server..").or(SERVER_PUBLIC).as("belong to the server adapter");

    private static final DescribedPredicate<JavaClass> CONSUMER_ADAPTER =
            resideInAnyPackage(ROOT + ".internals.leader..", ROOT + ".internals.wire..", ROOT + ".internals.member..",
                    ROOT + ".internals.barrier..")
                    .or(resideInAPackage(ROOT).and(not(SERVER_PUBLIC)))
                    .as("belong to the consumer adapter");

    private static final DescribedPredicate<JavaClass> KSCALE = resideInAPackage("io.kscale..");

    private static final JavaClasses ASSIGNOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    @Test
    void shouldKeepThePureCoreFreeOfTheRestOfKscale() {
        ArchRule rule = noClasses().that().resideInAnyPackage(CORE)
                .should().dependOnClassesThat(KSCALE.and(not(resideInAnyPackage(CORE))).as("are in other kscale packages"))
                .because("layout and placement are pure: every adapter builds on them");
        rule.check(ASSIGNOR);
    }

    @Test
    void shouldKeepTheSharedInternalsFreeOfEveryAdapter() {
        ArchRule rule = noClasses().that().resideInAnyPackage(SHARED)
                .should().dependOnClassesThat(KSCALE.and(not(resideInAnyPackage(CORE_AND_SHARED)))
                        .as("are in kscale packages outside the pure core and the shared internals"))
                .because("the store, the metrics and the close watch serve the consumer, Streams and server adapters "
                        + "alike: what an adapter means by its settings is handed in (see StoreAdvice)");
        rule.check(ASSIGNOR);
    }

    @Test
    void shouldKeepTheConsumerAdapterOffTheServerAdapter() {
        ArchRule rule = noClasses().that(CONSUMER_ADAPTER)
                .should().dependOnClassesThat(SERVER_ADAPTER)
                .because("adapters depend on the pure core and the shared internals, never on each other");
        rule.check(ASSIGNOR);
    }

    @Test
    void shouldKeepTheServerAdapterOffTheConsumerAdapter() {
        ArchRule rule = noClasses().that(SERVER_ADAPTER)
                .should().dependOnClassesThat(CONSUMER_ADAPTER)
                .because("the broker-side assignor runs without a consumer: it shares only the pure core and the "
                        + "shared internals with the consumer assignor")
                .allowEmptyShould(true);
        rule.check(ASSIGNOR);
    }

    /**
     * The barrier's internals serve {@code ExpansionBarrier}, which uses them; were they to name
     * it back, even in Javadoc, the public class and its internals would form one import circle
     * that compiles and changes only together. Source imports are checked, not the bytecode:
     * Javadoc links and inlined constants leave no trace there.
     */
    @Test
    void shouldKeepTheBarriersInternalsFromImportingThePublicBarrier() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (String pkg : List.of("barrier", "member")) {
            Path dir = Path.of("src/main/java/io/kscale/assignor/internals", pkg);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java")).sorted()::iterator) {
                    String source = Files.readString(file);
                    if (source.contains("import io.kscale.assignor.ExpansionBarrier")) {
                        offenders.add(file.toString());
                    }
                }
            }
        }
        assertThat(offenders).as("internal sources importing the public ExpansionBarrier or its config").isEmpty();
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = new String[first.length + second.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
