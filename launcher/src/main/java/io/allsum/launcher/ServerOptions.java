package io.allsum.launcher;

import picocli.CommandLine.Option;

import java.net.URI;

/** A running rendezvous server to use and its token: the same two options in every command that takes them. */
final class ServerOptions {

    @Option(names = "--server", paramLabel = "URL",
            description = "Use this running rendezvous server (a cluster's) rather than start one.")
    URI server;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:ALLSUM_TOKEN}",
            description = "Bearer token of --server (default: $ALLSUM_TOKEN); a server the command starts has a "
                    + "random one.")
    String token;
}
