package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommunicatorFactory.JoinContribution;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of a program run as one process per GPU without a rendezvous server (NcclSelfCheck, the bench module's
 * NcclEnqueueProbe): the device, this process's rank, and the file through which rank 0 hands the NCCL id to the
 * others. A picocli mixin.
 */
final class GpuRanks {

    /** The command, its bad arguments answered with one line on stderr and exit 2, as the launcher does. */
    static CommandLine commandLine(Object command) {
        return new CommandLine(command).setParameterExceptionHandler((e, args) -> {
            CommandLine cli = e.getCommandLine();
            cli.getErr().println(cli.getCommandName() + ": " + e.getMessage() + " (--help lists the options)");
            return 2;
        });
    }

    @Option(names = "-d", paramLabel = "DEVICE", description = "CUDA device (default: ALLSUM_DEVICE / LOCAL_RANK)")
    Integer device;
    @Option(names = "--rank", paramLabel = "R", defaultValue = "0", description = "this process's rank")
    int rank;
    @Option(names = "--nranks", paramLabel = "N", defaultValue = "1", description = "world size (one process per GPU)")
    int nranks;
    @Option(names = "--id-file", paramLabel = "PATH", description = "where rank 0 writes the NCCL id for the others")
    Path idFile;
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "init and per-operation deadline (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    /** Refuses a rank outside the world, several ranks without an id file and a deadline below one second. */
    void check(CommandLine cli) {
        if (nranks < 1 || rank < 0 || rank >= nranks) {
            throw new ParameterException(cli, "--rank " + rank + " is outside [0, --nranks " + nranks + ")");
        }
        if (nranks > 1 && idFile == null) {
            throw new ParameterException(cli, "--nranks > 1 needs --id-file");
        }
        if (timeoutSeconds < 1) {
            throw new ParameterException(cli, "need --timeout >= 1");
        }
    }

    Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /** The factory on -d, else ALLSUM_DEVICE / LOCAL_RANK; throws (and closes it) when NCCL is unavailable here. */
    NcclCommunicatorFactory factory() {
        NcclCommunicatorFactory factory = new NcclCommunicatorFactory(
                device != null ? device : NcclCommunicatorFactory.deviceFromEnvironment(System.getenv()), timeout());
        if (!factory.isAvailable()) {
            String reason = factory.unavailableReason();
            factory.close();
            throw new IllegalStateException("NCCL backend unavailable: " + reason);
        }
        return factory;
    }

    /** This rank's group: on one rank its own NCCL id, on several rank 0's, passed on through the id file. */
    GroupView view(JoinContribution join) throws Exception {
        String uniqueId = nranks == 1 ? join.uniqueId() : exchangeId(join.uniqueId());
        List<Member> members = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            members.add(new Member(r, "selfcheck-" + r, null, null, r == rank ? join.device() : null));
        }
        return new GroupView("selfcheck", 1, nranks, Backend.NCCL, uniqueId, members);
    }

    /** Rank 0 writes the id to the file (write, then rename); the others poll for it for 60 s. */
    private String exchangeId(String ownId) throws Exception {
        if (rank == 0) {
            Path tmp = idFile.resolveSibling(idFile.getFileName() + ".tmp");
            Files.writeString(tmp, ownId);
            Files.move(tmp, idFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return ownId;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(idFile)) {
                String id = Files.readString(idFile).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("rank " + rank + ": no NCCL id in " + idFile + " after 60 s");
    }
}
