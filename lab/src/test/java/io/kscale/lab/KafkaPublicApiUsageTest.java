package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.admin.TopicExpansions;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.partitioner.UniformStickyBytesPartitioner;
import io.kscale.streams.WarmupTaskAssignor;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.annotation.InterfaceAudience;
import org.junit.jupiter.api.Test;

/**
 * The plug-ins use only Kafka's public API: every Kafka class that a class of the three library
 * jars refers to carries {@code @InterfaceAudience.Public}, itself or through the class it is
 * nested in (Kafka 4.4 marks its public API so, in kafka-clients, kafka-streams and
 * kafka-group-coordinator-api alike, and its KIP-1265 checker fails builds that use anything
 * else). Anything else, such as {@code org.apache.kafka.common.utils.Utils} or {@code Time}, may
 * change in any release and break users on a client version kscale was not built against.
 *
 * <p>Read from the bytecode, not the sources: every class name in each class file's constant pool
 * (the classes it instantiates, calls, casts to, catches, and, since javac 9, the owner of every
 * compile-time constant it inlined) and every class in its field and method descriptors and
 * generic signatures. The Kafka classes are those on this module's classpath: kafka-clients,
 * kafka-streams and kafka-group-coordinator-api of the version kscale builds against. Here, in the
 * lab, because it is the module that sees all three plug-ins and those three Kafka jars.
 */
class KafkaPublicApiUsageTest {

    private static final String KAFKA = "org.apache.kafka.";
    /** A class in a descriptor or signature: {@code Lorg/apache/kafka/...;} or, with type arguments, {@code ...<}. */
    private static final Pattern KAFKA_TYPE = Pattern.compile("L(org/apache/kafka/[^;<]+)[;<]");

    private static final List<Class<?>> PLUGINS =
            List.of(UniformStickyBytesPartitioner.class, KeyPreservingAssignor.class, WarmupTaskAssignor.class,
                    // Not a plug-in but an operator's tool: held to the same rule, so that it runs against newer clients.
                    TopicExpansions.class);

    @Test
    void shouldReferToNoKafkaClassOutsideKafkasPublicApi() throws Exception {
        Map<String, Set<String>> users = kafkaClassesUsed();
        List<String> outside = new ArrayList<>();
        users.forEach((kafkaClass, usedBy) -> {
            String why = whyNotPublic(kafkaClass);
            if (why != null) {
                outside.add(kafkaClass + " (" + why + "), used by " + usedBy);
            }
        });

        assertThat(outside).as("Kafka classes without @InterfaceAudience.Public in the plug-ins' bytecode").isEmpty();
    }

    @Test
    void shouldSeeThePluginsAndTheirUseOfKafka() throws Exception {
        // Guards the test above against a reader that finds nothing (and so passes).
        Map<String, Set<String>> users = kafkaClassesUsed();
        assertThat(users).containsKeys("org.apache.kafka.clients.producer.Partitioner",
                "org.apache.kafka.clients.consumer.ConsumerPartitionAssignor",
                "org.apache.kafka.streams.processor.assignment.TaskAssignor",
                "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor");
        assertThat(whyNotPublic("org.apache.kafka.common.utils.Utils")).as("the check itself").isNotNull();
        assertThat(whyNotPublic("org.apache.kafka.common.metrics.Metrics")).as("the check itself").isNull();
    }

    /** Kafka class name to the plug-in classes that refer to it, over the three plug-in jars. */
    private static Map<String, Set<String>> kafkaClassesUsed() throws IOException, URISyntaxException {
        Map<String, Set<String>> users = new TreeMap<>();
        for (Class<?> plugin : PLUGINS) {
            Path root = Path.of(plugin.getProtectionDomain().getCodeSource().getLocation().toURI());
            forEachClassFile(root, (name, bytes) -> {
                for (String kafkaClass : ConstantPool.read(bytes).kafkaClasses()) {
                    users.computeIfAbsent(kafkaClass, key -> new TreeSet<>()).add(name);
                }
            });
        }
        return users;
    }

    /** Null if {@code className} or a class it is nested in is marked public API, else why not. */
    private static String whyNotPublic(String className) {
        Class<?> type;
        try {
            type = Class.forName(className, false, KafkaPublicApiUsageTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return "not in Kafka's jars: " + e;
        }
        for (Class<?> enclosing = type; enclosing != null; enclosing = enclosing.getEnclosingClass()) {
            if (enclosing.isAnnotationPresent(InterfaceAudience.Public.class)) {
                return null;
            }
        }
        return "no @InterfaceAudience.Public";
    }

    private interface ClassFileVisitor {
        void visit(String className, byte[] bytes) throws IOException;
    }

    /** Visits every class file under a directory (target/classes) or in a jar. */
    private static void forEachClassFile(Path root, ClassFileVisitor visitor) throws IOException {
        if (Files.isDirectory(root)) {
            List<Path> classFiles;
            try (Stream<Path> files = Files.walk(root)) {
                classFiles = files.filter(file -> file.toString().endsWith(".class")).toList();
            }
            assertThat(classFiles).as("class files under %s", root).isNotEmpty();
            for (Path file : classFiles) {
                visitor.visit(root.relativize(file).toString(), Files.readAllBytes(file));
            }
            return;
        }
        try (JarFile jar = new JarFile(root.toFile())) {
            for (JarEntry entry : jar.stream().toList()) {
                if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        visitor.visit(entry.getName(), in.readAllBytes());
                    }
                }
            }
        }
    }

    /**
     * The constant pool of a class file (JVMS 4.4), as far as class names go: the names of its
     * {@code CONSTANT_Class} entries and every {@code CONSTANT_Utf8} entry, which holds the
     * descriptors and signatures. A few lines instead of a bytecode library: the pool is a flat list.
     */
    private record ConstantPool(List<String> classNames, List<String> utf8) {

        static ConstantPool read(byte[] classFile) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            int count = in.readUnsignedShort();
            String[] strings = new String[count];
            List<Integer> classNameIndexes = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> strings[i] = in.readUTF(); // Utf8: u2 length, modified UTF-8, as readUTF reads it
                    case 7 -> classNameIndexes.add(in.readUnsignedShort()); // Class
                    case 8, 16, 19, 20 -> in.skipBytes(2); // String, MethodType, Module, Package
                    case 15 -> in.skipBytes(3); // MethodHandle
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4); // Integer, Float, refs, NameAndType, (Invoke)Dynamic
                    case 5, 6 -> { // Long, Double: two slots
                        in.skipBytes(8);
                        i++;
                    }
                    default -> throw new IOException("unknown constant pool tag " + tag + " at " + i);
                }
            }
            List<String> classNames = classNameIndexes.stream().map(index -> strings[index]).toList();
            List<String> utf8 = Stream.of(strings).filter(string -> string != null).toList();
            return new ConstantPool(classNames, utf8);
        }

        /** Kafka classes named anywhere in the pool, binary names ({@code a.b.Outer$Inner}). */
        Set<String> kafkaClasses() {
            Set<String> found = new TreeSet<>();
            for (String name : classNames) {
                String internal = name.startsWith("[") ? name.replaceFirst("^\\[+L?", "").replace(";", "") : name;
                addIfKafka(internal, found);
            }
            for (String string : utf8) {
                Matcher matcher = KAFKA_TYPE.matcher(string);
                while (matcher.find()) {
                    addIfKafka(matcher.group(1), found);
                }
            }
            return found;
        }

        private static void addIfKafka(String internalName, Set<String> found) {
            String binary = internalName.replace('/', '.');
            if (binary.startsWith(KAFKA)) {
                found.add(binary);
            }
        }
    }
}
