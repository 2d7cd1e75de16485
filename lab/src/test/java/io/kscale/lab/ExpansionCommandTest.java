package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.expansion.Interruption;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ExpansionCommandTest {

    @Test
    void shouldOfferHelpDescribingEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("expansion", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab expansion").contains("--help")
                .contains("--group-protocol", "--peers", "--partitions", "--members", "--keys", "--rate", "--records-per-step",
                        "--report-dir", "--bootstrap-server", "--brokers", "--faults", "--interruption");
        CommandLine expansion = lab.getSubcommands().get("expansion");
        expansion.getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldDefaultToTheScenariosDefaults() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs();

        ExpansionSettings settings = command.settings();
        ExpansionSettings defaults = ExpansionSettings.defaults();
        assertThat(settings.peers()).isEqualTo(defaults.peers());
        assertThat(settings.partitionSteps()).isEqualTo(defaults.partitionSteps());
        assertThat(settings.members()).isEqualTo(defaults.members());
        assertThat(settings.keys()).isEqualTo(defaults.keys());
        assertThat(settings.recordsPerSecond()).isEqualTo(defaults.recordsPerSecond());
        assertThat(settings.recordsPerStep()).isEqualTo(defaults.recordsPerStep());
    }

    @Test
    void shouldParseCommaSeparatedListsAndSizes() {
        ExpansionCommand command = new ExpansionCommand();
        CommandLine.ParseResult parsed = new CommandLine(command).parseArgs("--peers", "range, KScale",
                "--partitions", "2,6,12,24", "--members", "5", "--keys", "50", "--rate", "500",
                "--records-per-step", "1000", "--report-dir", "/tmp/r", "--brokers", "1");

        ExpansionSettings settings = command.settings();
        assertThat(settings.peers()).containsExactly(ExpansionPeer.RANGE, ExpansionPeer.KSCALE);
        assertThat(settings.partitionSteps()).containsExactly(2, 6, 12, 24);
        assertThat(settings.members()).isEqualTo(5);
        assertThat(settings.keys()).isEqualTo(50);
        assertThat(settings.recordsPerSecond()).isEqualTo(500);
        assertThat(settings.recordsPerStep()).isEqualTo(1000);
        assertThat((Path) parsed.matchedOptionValue("--report-dir", null)).isEqualTo(Path.of("/tmp/r"));
    }

    @Test
    void shouldNameTheExpectedAssignorsForAnUnknownOne() {
        assertThat(ExpansionPeer.fromCliName(" Cooperative-Sticky ")).isEqualTo(ExpansionPeer.COOPERATIVE_STICKY);
        assertThatThrownBy(() -> ExpansionPeer.fromCliName("sticky"))
                .hasMessageContaining("'sticky'").hasMessageContaining("kscale, kscale-no-barrier, cooperative-sticky, range");
    }

    @Test
    void shouldRunTheBrokerSidePeersOnBrokersThatOfferThem() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--group-protocol", "Consumer", "--peers", "server-uniform,server-range");

        ExpansionSettings settings = command.settings();
        ClusterSpec brokers = ExpansionCommand.brokers(ClusterSpec.builder(), settings).build();

        assertThat(settings.peers()).containsExactly(ExpansionPeer.SERVER_UNIFORM, ExpansionPeer.SERVER_RANGE);
        assertThat(settings.peers()).allSatisfy(peer -> assertThat(peer.consumerSettings())
                .containsEntry("group.protocol", "consumer").containsKey("group.remote.assignor")
                .doesNotContainKey("partition.assignment.strategy"));
        assertThat(brokers.pluginJars()).hasSize(1);
        assertThat(brokers.brokerProperties())
                .containsEntry(ServerAssignorPlugin.ASSIGNORS_CONFIG, ServerAssignorPlugin.assignorsSetting())
                .containsAllEntriesOf(ServerAssignorPlugin.FAST_HEARTBEATS);
    }

    @Test
    void shouldRunTheFaultsOnTheConsumerProtocolWithTheBrokerSideAssignorAndShortSessions() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--faults", "--group-protocol", "consumer", "--peers", "server-uniform");

        ExpansionPeer peer = command.settings().peers().get(0);
        ClusterSpec brokers = ExpansionCommand.faultedBrokers(ClusterSpec.builder(), peer).build();
        ClusterSpec classic = ExpansionCommand.faultedBrokers(ClusterSpec.builder(), ExpansionPeer.KSCALE).build();

        assertThat(peer).isEqualTo(ExpansionPeer.SERVER_UNIFORM);
        assertThat(brokers.pluginJars()).hasSize(1);
        assertThat(brokers.brokerProperties())
                .containsEntry(ServerAssignorPlugin.ASSIGNORS_CONFIG, ServerAssignorPlugin.assignorsSetting())
                .containsEntry("group.consumer.session.timeout.ms", "6000")
                .containsEntry("group.consumer.min.session.timeout.ms", "6000")
                .containsAllEntriesOf(ServerAssignorPlugin.FAST_HEARTBEATS);
        assertThat(classic.pluginJars()).isEmpty();
        assertThat(classic.brokerProperties()).isEmpty();
    }

    @Test
    void shouldStartPlainBrokersForTheClassicPeers() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--group-protocol", "classic");

        ClusterSpec brokers = ExpansionCommand.brokers(ClusterSpec.builder(), command.settings()).build();

        assertThat(command.settings().peers()).isEqualTo(ExpansionSettings.defaults().peers());
        assertThat(brokers.pluginJars()).isEmpty();
        assertThat(brokers.brokerProperties()).isEmpty();
    }

    @Test
    void shouldDefaultToEveryBrokerSidePeerUnderTheConsumerProtocol() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--group-protocol", "consumer");

        if (ServerAssignorPlugin.isAvailable()) {
            assertThat(command.settings().peers()).containsExactly(ExpansionPeer.SERVER_KSCALE,
                    ExpansionPeer.SERVER_UNIFORM, ExpansionPeer.SERVER_RANGE);
        } else {
            assertThatThrownBy(command::settings).hasMessageContaining(ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS)
                    .hasMessageContaining("server-uniform,server-range");
        }
    }

    @Test
    void shouldRejectAPeerOfTheOtherProtocol() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--group-protocol", "consumer", "--peers", "server-uniform,kscale");

        assertThatThrownBy(command::settings).hasMessageContaining("--peers kscale runs on the classic protocol")
                .hasMessageContaining("server-kscale, server-uniform, server-range");
    }

    @Test
    void shouldRejectAnUnknownGroupProtocol() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--group-protocol", "streams");

        assertThatThrownBy(command::settings).hasMessageContaining("--group-protocol must be classic or consumer")
                .hasMessageContaining("'streams'");
    }

    @Test
    void shouldNameTheInterruptionsForAnUnknownOne() {
        assertThat(Interruption.fromCliName(" Broker-Restart ")).isEqualTo(Interruption.BROKER_RESTART);
        assertThatThrownBy(() -> Interruption.fromCliName("reboot")).hasMessageContaining("'reboot'")
                .hasMessageContaining("group-restart, broker-restart, topic-recreated, migration");
    }

    @Test
    void shouldRunInterruptionsOnlyOnTheLabsOwnCluster() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--interruption", "group-restart", "--bootstrap-server", "127.0.0.1:1");

        assertThatThrownBy(command::call).hasMessageContaining("--interruption restarts groups, brokers or topics");
    }

    @Test
    void shouldRejectShrinkingPartitionCounts() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--partitions", "8,4");

        assertThatThrownBy(command::settings).hasMessageContaining("must grow");
    }
}
