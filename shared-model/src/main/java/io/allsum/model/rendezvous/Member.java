package io.allsum.model.rendezvous;

/** One member of a completed generation, as every rank sees it. */
public record Member(int rank, String instanceId, String endpoint, String host, String device) {
}
