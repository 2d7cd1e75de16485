package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The "Compatibility" tables of docs/compatibility.md and of README.md (its summary) state what is
 * tested; this test holds both to the build's own matrix, so neither can change without the other: the client versions are the parent POM's
 * {@code kafka.version} plus one {@code client-<version>} execution each in
 * {@code client-compat/pom.xml}; the broker versions are {@code .ci/broker-versions}' default list;
 * the Java versions are the tests' {@code maven.compiler.testRelease} plus {@code .ci/run}'s
 * {@code EXTRA_JAVA_VERSIONS}. A row counts for its kind by its first word (clients, brokers,
 * Java) and lists its versions, comma-separated, in its second cell.
 */
class DocsCompatibilityTableTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern VERSION = Pattern.compile("\\d+(?:\\.\\d+)*");

    @Test
    void clientVersionsAreTheCompatMatrix() throws Exception {
        Set<String> built = new TreeSet<>();
        built.add(pomProperty(ROOT.resolve("pom.xml"), "kafka.version"));
        NodeList ids = pom(ROOT.resolve("client-compat/pom.xml")).getElementsByTagName("id");
        for (int i = 0; i < ids.getLength(); i++) {
            String id = ids.item(i).getTextContent().trim();
            if (id.startsWith("client-")) {
                built.add(id.substring("client-".length()));
            }
        }
        assertThat(built).as("client versions of the build").hasSizeGreaterThan(1);
        assertTablesList("clients", built);
    }

    @Test
    void brokerVersionsAreTheBrokerMatrix() throws IOException {
        String script = Files.readString(ROOT.resolve(".ci/broker-versions"), StandardCharsets.UTF_8);
        Set<String> built = versions(single(script, "\\|\\| versions=\\(([^)]*)\\)", ".ci/broker-versions default list"));
        built.add(pomProperty(ROOT.resolve("pom.xml"), "kafka.version")); // the default suites' broker
        assertTablesList("brokers", built);
    }

    @Test
    void javaVersionsAreWhatTheBuildAndCiRun() throws IOException {
        String script = Files.readString(ROOT.resolve(".ci/run"), StandardCharsets.UTF_8);
        Set<String> built = versions(single(script, "(?m)^EXTRA_JAVA_VERSIONS=\\(([^)]*)\\)", ".ci/run EXTRA_JAVA_VERSIONS"));
        built.add(pomProperty(ROOT.resolve("pom.xml"), "maven.compiler.testRelease"));
        assertTablesList("Java", built);
    }

    /**
     * Both tables list exactly {@code built} in their rows of {@code kind}: a row whose first cell
     * starts with it (docs), or with "Kafka " and it (README's summary).
     */
    private static void assertTablesList(String kind, Set<String> built) throws IOException {
        assertThat(versions("docs/compatibility.md", "# Compatibility", kind))
                .as("docs/compatibility.md, %s rows", kind).isEqualTo(built);
        String summaryKind = kind.equals("Java") ? kind : "Kafka " + kind;
        assertThat(versions("README.md", "## Compatibility", summaryKind))
                .as("README.md Compatibility summary, %s rows", summaryKind).isEqualTo(built);
    }

    /** The versions in every row of the first table under {@code heading} whose first cell starts with {@code kind}. */
    private static Set<String> versions(String document, String heading, String kind) throws IOException {
        String text = "\n" + Files.readString(ROOT.resolve(document), StandardCharsets.UTF_8);
        int section = text.indexOf("\n" + heading + "\n");
        assertThat(section).as("%s section %s", document, heading).isNotNegative();
        Set<String> found = new TreeSet<>();
        boolean inTable = false;
        for (String line : text.substring(section + 1).split("\n")) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break; // the table ends at its first non-row line
                }
                continue;
            }
            inTable = true;
            String[] cells = line.split("\\|");
            if (cells.length > 2 && cells[1].strip().startsWith(kind)) {
                found.addAll(versions(cells[2]));
            }
        }
        assertThat(found).as("%s Compatibility rows for %s", document, kind).isNotEmpty();
        return found;
    }

    private static Set<String> versions(String text) {
        Set<String> versions = new TreeSet<>();
        Matcher matcher = VERSION.matcher(text);
        while (matcher.find()) {
            versions.add(matcher.group());
        }
        return versions;
    }

    private static String single(String text, String regex, String what) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as(what).isTrue();
        return matcher.group(1);
    }

    private static String pomProperty(Path pom, String name) {
        NodeList nodes = pom(pom).getElementsByTagName(name);
        assertThat(nodes.getLength()).as(pom + " property " + name).isEqualTo(1);
        return nodes.item(0).getTextContent().trim();
    }

    private static Document pom(Path pom) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(pom.toFile());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + pom, e);
        }
    }
}
