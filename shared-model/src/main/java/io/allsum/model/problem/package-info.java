/**
 * The error contract of protocol v1 (docs/protocol.md, "Errors"): every error is an RFC 9457 problem with
 * {@code code} (a {@link io.allsum.model.problem.ProblemCode} wire value) and, for invalid requests,
 * {@code violations} (a list of {@link io.allsum.model.problem.Violation}).
 */
package io.allsum.model.problem;
