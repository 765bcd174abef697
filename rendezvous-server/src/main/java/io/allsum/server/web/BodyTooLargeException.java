package io.allsum.server.web;

import java.io.IOException;

/** A request body grew past {@code allsum.rendezvous.max-body-size} while being read; answered 413. */
public class BodyTooLargeException extends IOException {

    public BodyTooLargeException(long limitBytes) {
        super("request body exceeds the limit of " + limitBytes + " bytes");
    }
}
