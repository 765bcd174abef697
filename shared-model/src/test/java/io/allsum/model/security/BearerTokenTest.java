package io.allsum.model.security;

import io.allsum.model.security.BearerToken.Check;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BearerTokenTest {

    private final BearerToken token = BearerToken.of("s3cret");

    @Test
    void acceptsTheTokenWithTheSchemeInAnyCase() {
        assertThat(token.check("Bearer s3cret")).isEqualTo(Check.ACCEPTED);
        assertThat(token.check("bearer s3cret")).isEqualTo(Check.ACCEPTED);
        assertThat(token.check("BEARER  s3cret ")).isEqualTo(Check.ACCEPTED);
    }

    @Test
    void tellsAMissingTokenFromAWrongOne() {
        assertThat(token.check(null)).isEqualTo(Check.MISSING);
        assertThat(token.check("Basic czNjcmV0")).isEqualTo(Check.MISSING);
        assertThat(token.check("Bearer s3cre")).isEqualTo(Check.WRONG);
        assertThat(token.check("Bearer ")).isEqualTo(Check.WRONG);
    }

    @Test
    void onlySpacesSeparateTheSchemeFromTheToken() {
        assertThat(token.check("Bearer\ts3cret")).isEqualTo(Check.MISSING);
        assertThat(token.check("Bearer \ts3cret")).isEqualTo(Check.MISSING);
        assertThat(token.check("Bearer\t s3cret")).isEqualTo(Check.MISSING);
        assertThat(token.check("Bearer   s3cret")).isEqualTo(Check.ACCEPTED);
    }

    @Test
    void buildsTheClientHeaderAndNeverPrintsTheToken() {
        assertThat(token.authorizationHeader()).isEqualTo("Bearer s3cret");
        assertThat(token.toString()).doesNotContain("s3cret");
        assertThatIllegalArgumentException().isThrownBy(() -> BearerToken.of(" "));
    }
}
