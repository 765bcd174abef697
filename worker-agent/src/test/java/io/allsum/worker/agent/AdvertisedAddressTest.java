package io.allsum.worker.agent;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdvertisedAddressTest {

    static final URI REMOTE = URI.create("http://192.0.2.10:8080");

    @Test
    void explicitAdvertiseHostWinsOverEverything() {
        assertThat(AdvertisedAddress.choose(" node7.example ", "10.1.1.1", REMOTE, "lo", "127.0.0.0/8").host())
                .isEqualTo("node7.example");
    }

    @Test
    void ringListeningOnOneAddressAdvertisesThatAddress() {
        assertThat(AdvertisedAddress.choose(null, "10.1.1.1", REMOTE, null, null).host()).isEqualTo("10.1.1.1");
    }

    @Test
    void serverOnLoopbackMeansASingleHostGroupOnLoopback() {
        AdvertisedAddress.Choice c = AdvertisedAddress.choose(null, "0.0.0.0", URI.create("http://127.0.0.1:9"), null,
                null);
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.reason()).contains("single-host");
    }

    @Test
    void remoteServerGivesAnAddressOfThisHostThatIsNeverLoopbackNorAName() throws Exception {
        AdvertisedAddress.Choice c = AdvertisedAddress.choose(null, "0.0.0.0", REMOTE, null, null);
        InetAddress chosen = InetAddress.getByName(c.host());
        assertThat(chosen.isLoopbackAddress()).as(c.toString()).isFalse();
        assertThat(c.host()).as("an address literal").matches("[0-9.]+|[0-9a-fA-F:%.a-z0-9]+");
        assertThat(NetworkInterface.getByInetAddress(chosen)).as("%s is this host's", c).isNotNull();
    }

    @Test
    void configuredInterfaceGivesItsAddress() {
        AdvertisedAddress.Choice c = AdvertisedAddress.choose(null, "0.0.0.0", REMOTE, "lo", null);
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.reason()).isEqualTo("allsum.worker.ring-interface=lo");
    }

    @Test
    void unknownInterfaceFailsNamingItAndTheInterfacesThisHostHas() {
        assertThatThrownBy(() -> AdvertisedAddress.choose(null, "0.0.0.0", REMOTE, "ib9", null))
                .hasMessageContaining("ring-interface=ib9").hasMessageContaining("no such interface")
                .hasMessageContaining("lo [");
    }

    @Test
    void configuredCidrGivesTheLocalAddressInsideIt() {
        assertThat(AdvertisedAddress.choose(null, "0.0.0.0", REMOTE, null, "127.0.0.0/8").host())
                .isEqualTo("127.0.0.1");
    }

    @Test
    void cidrWithNoLocalAddressFailsNamingIt() {
        assertThatThrownBy(() -> AdvertisedAddress.choose(null, "0.0.0.0", REMOTE, null, "203.0.113.0/24"))
                .hasMessageContaining("ring-cidr=203.0.113.0/24").hasMessageContaining("no local address");
    }

    @Test
    void malformedCidrIsRejectedWithAnExample() {
        for (String bad : List.of("10.0.0.0", "10.0.0.0/33", "eth0/8", "10.0.0.0/x")) {
            assertThatThrownBy(() -> AdvertisedAddress.Cidr.parse(bad)).as(bad)
                    .hasMessageContaining("10.0.0.0/8").hasMessageContaining(bad);
        }
    }

    @Test
    void cidrContainsExactlyTheAddressesUnderItsPrefix() throws Exception {
        AdvertisedAddress.Cidr net = AdvertisedAddress.Cidr.parse("10.20.0.0/14");
        assertThat(net.contains(InetAddress.getByName("10.23.255.255"))).isTrue();
        assertThat(net.contains(InetAddress.getByName("10.24.0.0"))).isFalse();
        assertThat(net.contains(InetAddress.getByName("::1"))).isFalse();
        assertThat(AdvertisedAddress.Cidr.parse("0.0.0.0/0").contains(InetAddress.getByName("8.8.8.8"))).isTrue();
    }
}
