package io.allsum.server.security;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code allsum.security.*}. {@code token} defaults to the {@code ALLSUM_TOKEN} environment variable
 * (application.properties); when blank, the server accepts every request.
 */
@ConfigurationProperties("allsum.security")
public record SecurityProperties(String token) {

    public boolean tokenConfigured() {
        return token != null && !token.isBlank();
    }

    @Override
    public String toString() {
        return "SecurityProperties[token=" + (tokenConfigured() ? "<set>" : "<none>") + "]";
    }
}
