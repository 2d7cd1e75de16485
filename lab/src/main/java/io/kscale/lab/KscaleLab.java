package io.kscale.lab;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The {@code kscale-lab} command: real local Kafka clusters and the scenarios that measure
 * kscale's plug-ins against Kafka's own.
 *
 * <p>Example: {@code ./kscale-lab demo} runs each plug-in against Kafka's default on a 3-broker
 * cluster in a few minutes; {@code ./kscale-lab cluster --brokers 3} starts three brokers on
 * loopback, prints their bootstrap address and runs until Ctrl-C.
 */
@Command(name = "kscale-lab",
        mixinStandardHelpOptions = true,
        versionProvider = LabVersion.class,
        description = "Runs real local Kafka clusters and the kscale scenarios against them.",
        subcommands = {DemoCommand.class, ClusterCommand.class, ImageCommand.class, PartitionerCommand.class, BatchingCommand.class,
            ExpansionCommand.class, ScaleOutCommand.class,
            PlacementCommand.class, ContainerStartsCommand.class, CommandLine.HelpCommand.class})
public final class KscaleLab implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command tree, for tests and for main. */
    public static CommandLine commandLine() {
        return new CommandLine(new KscaleLab()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        // No subcommand: show what there is.
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
