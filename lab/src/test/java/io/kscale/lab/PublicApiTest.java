package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of the three plug-ins and of the operator's tool, pinned over their class files.
 * A user-facing package ({@code io.kscale.partitioner}, {@code io.kscale.assignor},
 * {@code io.kscale.streams}, {@code io.kscale.admin}) holds
 * exactly the types listed here as public; everything else is package-private there or lives
 * in an {@code internals} package, which no public signature of the API may mention. Adding a
 * public type is adding a name forever: change {@link #API} deliberately, with README. The
 * binary compatibility of this API against the last release is japicmp's job (parent pom);
 * this test keeps the API from growing by accident. Here, in the lab, because it is the module
 * that depends on all three plug-ins (and, for this test only, on the admin module).
 */
class PublicApiTest {

    private static final Set<String> API = Set.of(
            "io.kscale.partitioner.UniformStickyBytesPartitioner",
            "io.kscale.partitioner.UniformStickyBytesPartitionerConfig",
            "io.kscale.assignor.KeyPreservingAssignor",
            "io.kscale.assignor.KeyPreservingAssignorConfig",
            "io.kscale.assignor.KeyPreservingServerAssignor",
            "io.kscale.assignor.KeyPreservingServerAssignorConfig",
            "io.kscale.assignor.ExpansionBarrier",
            "io.kscale.assignor.ExpansionBarrierConfig",
            "io.kscale.assignor.FollowUpRebalance",
            "io.kscale.assignor.TaskRef",
            "io.kscale.assignor.TaskStateListener",
            "io.kscale.streams.WarmupTaskAssignor",
            "io.kscale.streams.WarmupTaskAssignorConfig",
            "io.kscale.admin.TopicExpansions",
            "io.kscale.admin.TopicExpansions$Kind",
            "io.kscale.admin.TopicExpansions$TopicReport",
            "io.kscale.admin.TopicExpansions$GroupReport",
            "io.kscale.admin.TopicExpansions$Plan",
            "io.kscale.admin.TopicExpansions$Options",
            "io.kscale.admin.TopicExpansions$Outcome",
            "io.kscale.admin.TopicExpansions$Settlement");

    private static final Set<String> USER_FACING_PACKAGES =
            Set.of("io.kscale.partitioner", "io.kscale.assignor", "io.kscale.streams", "io.kscale.admin");

    private static final JavaClasses KSCALE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(USER_FACING_PACKAGES);

    @Test
    void shouldExposeExactlyTheListedTypesInTheUserFacingPackages() {
        Set<String> exposed = KSCALE.stream()
                .filter(type -> USER_FACING_PACKAGES.contains(type.getPackageName()))
                .filter(PublicApiTest::visibleToUsers)
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(exposed).containsExactlyInAnyOrderElementsOf(API);
    }

    @Test
    void shouldKeepInternalsOutOfPublicSignatures() {
        List<String> leaks = new ArrayList<>();
        KSCALE.stream()
                .filter(type -> API.contains(type.getName()))
                .forEach(type -> leaks.addAll(internalsIn(type)));

        assertThat(leaks).as("public signatures of the API that mention internals types").isEmpty();
    }

    @Test
    void shouldFindTheWholeApi() {
        // Guards the two tests above against an importer that sees nothing (and so passes).
        assertThat(KSCALE.stream().map(JavaClass::getName)).containsAll(API);
        assertThat(KSCALE.stream().map(JavaClass::getPackageName))
                .anyMatch(name -> name.contains(".internals"));
    }

    private static List<String> internalsIn(JavaClass type) {
        List<String> leaks = new ArrayList<>();
        Stream.concat(type.getRawSuperclass().stream(), type.getRawInterfaces().stream())
                .filter(PublicApiTest::internal)
                .forEach(supertype -> leaks.add(type.getName() + " extends " + supertype.getName()));
        for (JavaMember member : type.getMembers()) {
            if (!visible(member.getModifiers())) {
                continue;
            }
            Set<JavaClass> mentioned = new TreeSet<>((a, b) -> a.getName().compareTo(b.getName()));
            if (member instanceof JavaField) {
                mentioned.addAll(((JavaField) member).getType().getAllInvolvedRawTypes());
            } else if (member instanceof JavaCodeUnit) {
                JavaCodeUnit code = (JavaCodeUnit) member;
                mentioned.addAll(code.getReturnType().getAllInvolvedRawTypes());
                code.getParameterTypes().forEach(parameter -> mentioned.addAll(parameter.getAllInvolvedRawTypes()));
                code.getExceptionTypes().forEach(thrown -> mentioned.addAll(thrown.getAllInvolvedRawTypes()));
            }
            mentioned.stream()
                    .filter(PublicApiTest::internal)
                    .forEach(leak -> leaks.add(member.getFullName() + " mentions " + leak.getName()));
        }
        return leaks;
    }

    private static boolean visibleToUsers(JavaClass type) {
        if (!visible(type.getModifiers()) || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        return type.getEnclosingClass().map(PublicApiTest::visibleToUsers).orElse(true);
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static boolean internal(JavaClass type) {
        return type.getPackageName().startsWith("io.kscale.") && !USER_FACING_PACKAGES.contains(type.getPackageName());
    }
}
