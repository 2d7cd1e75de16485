package io.kscale.lab.cluster;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kills broker processes whose parent JVM is gone.
 *
 * <p>Brokers halt by themselves when their parent dies (see {@code BrokerMain}), but a broker that
 * was paused (SIGSTOP) when its parent was killed cannot run that check. Every broker carries
 * {@value #OWNER_PROPERTY} on its command line; before starting a cluster, the lab resumes and
 * kills every broker whose owner process no longer exists. The mark comes before the long
 * classpath on the command line, because Linux shows Java at most 4096 characters of it.
 */
final class OrphanReaper {

    static final String OWNER_PROPERTY = "kscale.owner.pid";
    private static final Logger log = LoggerFactory.getLogger(OrphanReaper.class);
    private static final Pattern OWNER = Pattern.compile("-D" + Pattern.quote(OWNER_PROPERTY) + "=(\\d+)");

    private OrphanReaper() {
    }

    /** The JVM option that marks a broker as owned by this process. */
    static String ownerOption() {
        return "-D" + OWNER_PROPERTY + "=" + ProcessHandle.current().pid();
    }

    static void reapOrphans() {
        List<ProcessHandle> orphans = ProcessHandle.allProcesses()
                .filter(p -> ownerOf(p).map(owner -> ProcessHandle.of(owner).isEmpty()).orElse(false))
                .collect(Collectors.toList());
        for (ProcessHandle orphan : orphans) {
            log.warn("Killing broker process {} left behind by a lab process that is gone", orphan.pid());
            Signals.send("CONT", orphan.pid());
            orphan.destroyForcibly();
        }
    }

    static Optional<Long> ownerOf(ProcessHandle process) {
        return process.info().commandLine().flatMap(OrphanReaper::ownerIn);
    }

    static Optional<Long> ownerIn(String commandLine) {
        Matcher matcher = OWNER.matcher(commandLine);
        return matcher.find() ? Optional.of(Long.parseLong(matcher.group(1))) : Optional.empty();
    }
}
