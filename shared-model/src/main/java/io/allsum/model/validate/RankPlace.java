package io.allsum.model.validate;

/** Where a rank runs: its host (the address its peers reach it at) and its device (a GPU index, or "cpu"). */
public record RankPlace(int rank, String host, String device) {
}
