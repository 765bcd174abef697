package io.allsum.worker.agent;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the ring backend picks the address it tells its peers, when {@code allsum.worker.ring-advertise-host} is not
 * set (see {@link AdvertisedAddress}). Kept apart from {@link WorkerProperties} so that record's constructor stays
 * as it is.
 *
 * @param ringInterface the network interface whose address peers dial (e.g. eth1, ib0), like NCCL_SOCKET_IFNAME
 * @param ringCidr      a subnet (e.g. 10.0.0.0/8): the local address inside it is advertised
 */
@ConfigurationProperties("allsum.worker")
public record AdvertisedAddressProperties(String ringInterface, String ringCidr) {
}
