package io.allsum.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every overlay of deploy/kubernetes that the docs name, rendered (in Java, no kubectl) and parsed strictly against
 * the Kubernetes model, then checked for the contract the worker and server rely on.
 */
class KubernetesManifestsTest {

    static final Path KUBERNETES = Path.of("..", "deploy", "kubernetes");
    static final String TOKEN_SECRET = "allsum-token";

    /** overlay, world size, GPUs per pod, backend, worker image tag: the combinations the README documents. */
    static Stream<Arguments> overlays() {
        return Stream.of(
                Arguments.of("gpus-1", 1, 1, "nccl", "cuda13"),
                Arguments.of("gpus-2", 2, 1, "nccl", "cuda13"),
                Arguments.of("gpus-4", 4, 1, "nccl", "cuda13"),
                Arguments.of("gpus-8", 8, 1, "nccl", "cuda13"),
                Arguments.of("cpu", 2, 0, "ring", "cpu"));
    }

    @Test
    void everyOverlayDirectoryIsCoveredByTheDocumentedCombinations() throws IOException {
        List<String> documented = overlays().map(a -> (String) a.get()[0]).sorted().toList();
        try (Stream<Path> dirs = Files.list(KUBERNETES.resolve("overlays"))) {
            assertThat(dirs.map(p -> p.getFileName().toString()).sorted().toList()).isEqualTo(documented);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void overlayRendersToExactlyTheServerItsServiceTheWorkersAndTheSweep(String overlay) throws IOException {
        List<HasMetadata> resources = StrictKubernetesModel.parseAll(render(overlay));
        assertThat(resources).extracting(r -> r.getKind() + "/" + r.getMetadata().getName())
                .containsExactlyInAnyOrder("Deployment/allsum-server", "Service/allsum-server",
                        "Job/allsum-workers", "Job/allsum-sweep");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void serverHasActuatorProbesTheTokenFromTheSecretAndAServiceOnItsPort(String overlay) throws IOException {
        Map<String, HasMetadata> r = byName(overlay);
        Deployment server = (Deployment) r.get("Deployment/allsum-server");
        Service service = (Service) r.get("Service/allsum-server");
        assertThat(server.getSpec().getReplicas()).isEqualTo(1);
        assertThat(server.getSpec().getStrategy().getType()).isEqualTo("Recreate");
        Container c = only(server.getSpec().getTemplate().getSpec());
        assertThat(c.getImage()).isEqualTo("allsum/rendezvous-server:latest");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(c.getPorts()).anySatisfy(p -> {
            assertThat(p.getName()).isEqualTo("http");
            assertThat(p.getContainerPort()).isEqualTo(8080);
        });
        assertTokenFromSecret(c);

        assertThat(service.getSpec().getSelector())
                .isEqualTo(server.getSpec().getSelector().getMatchLabels());
        assertThat(server.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());
        assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort()).isEqualTo(8080);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void workersAreAnIndexedJobWhoseSizeIsTheWorldSizeWithOneGpuPerPod(String overlay, int worldSize, int gpus,
                                                                        String backend, String tag) throws IOException {
        Job workers = (Job) byName(overlay).get("Job/allsum-workers");
        assertThat(workers.getSpec().getCompletionMode()).isEqualTo("Indexed");
        assertThat(workers.getSpec().getCompletions()).isEqualTo(worldSize);
        assertThat(workers.getSpec().getParallelism()).isEqualTo(worldSize);
        PodSpec pod = workers.getSpec().getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("OnFailure");
        // Service links would put ALLSUM_SERVER_PORT=tcp://... into the worker's environment.
        assertThat(pod.getEnableServiceLinks()).isFalse();
        Container c = only(pod);
        assertThat(c.getImage()).isEqualTo("allsum/worker:" + tag);
        Map<String, EnvVar> env = env(c);
        assertThat(env.get("ALLSUM_WORLD_SIZE").getValue()).isEqualTo(String.valueOf(worldSize));
        assertThat(env.get("ALLSUM_BACKEND").getValue()).isEqualTo(backend);
        assertThat(env.get("ALLSUM_GROUP").getValue()).isEqualTo(sweepGroup(overlay));
        // The rank is the pod's completion index (JOB_COMPLETION_INDEX), never a fixed value.
        assertThat(env).doesNotContainKeys("ALLSUM_RANK", "RANK", "MLX_RANK", "ALLSUM_WORKER_RANK");
        assertThat(env.get("ALLSUM_WORKER_RING_ADVERTISE_HOST").getValueFrom().getFieldRef().getFieldPath())
                .isEqualTo("status.podIP");
        assertTokenFromSecret(c);

        Service service = (Service) byName(overlay).get("Service/allsum-server");
        assertThat(env.get("ALLSUM_SERVER").getValue()).isEqualTo("http://" + service.getMetadata().getName() + ":"
                + service.getSpec().getPorts().getFirst().getPort());

        Optional<Quantity> gpuLimit = Optional.ofNullable(c.getResources().getLimits())
                .map(l -> l.get("nvidia.com/gpu"));
        if (gpus > 0) {
            assertThat(gpuLimit).hasValueSatisfying(q -> assertThat(q.getAmount()).isEqualTo(String.valueOf(gpus)));
            assertThat(env.get("ALLSUM_DEVICE").getValue()).isEqualTo("0");
            assertThat(env.get("NCCL_SOCKET_IFNAME").getValue()).isEqualTo("eth0");
            assertThat(env.get("NCCL_NVLS_ENABLE").getValue()).isEqualTo("0");
            assertThat(env.get("NCCL_HOSTID").getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        } else {
            assertThat(gpuLimit).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void sweepRunsTheAllsumCommandOnceAgainstTheServiceAndTheWorkersGroup(String overlay, int worldSize, int gpus,
                                                                         String backend, String tag) throws IOException {
        Job sweep = (Job) byName(overlay).get("Job/allsum-sweep");
        assertThat(sweep.getSpec().getCompletions()).isNull();
        assertThat(sweep.getSpec().getCompletionMode()).isNull();
        PodSpec pod = sweep.getSpec().getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        Container c = only(pod);
        assertThat(c.getImage()).isEqualTo("allsum/worker:" + tag);
        assertThat(c.getCommand()).containsExactly("allsum", "--server", "http://allsum-server:8080", "--group",
                sweepGroup(overlay));
        assertTokenFromSecret(c);
    }

    @Test
    void strictParsingNamesAFieldTheKubernetesApiDoesNotKnow() throws IOException {
        ObjectNode workers = render("gpus-2").stream()
                .filter(d -> d.path("metadata").path("name").asText().equals("allsum-workers")).findFirst()
                .orElseThrow();
        ((ObjectNode) workers.at("/spec/template/spec/containers/0")).putObject("resource").put("limits", "x");
        assertThatThrownBy(() -> StrictKubernetesModel.parse(workers))
                .hasMessageContaining("containers[0].resource");
    }

    @Test
    void strictParsingRejectsAWrongType() throws IOException {
        ObjectNode workers = render("gpus-2").stream()
                .filter(d -> d.path("metadata").path("name").asText().equals("allsum-workers")).findFirst()
                .orElseThrow();
        ((ObjectNode) workers.get("spec")).put("completions", "many");
        assertThatThrownBy(() -> StrictKubernetesModel.parse(workers)).hasMessageContaining("allsum-workers");
    }

    @Test
    void renderingRefusesKustomizeFeaturesItDoesNotImplement(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Files.writeString(dir.resolve("kustomization.yaml"), "resources: []\nnamePrefix: x-\n");
        assertThatThrownBy(() -> MiniKustomize.render(dir)).hasMessageContaining("namePrefix");
    }

    @Test
    void aPatchWhosePathIsMissingFailsInsteadOfBeingIgnored(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Files.writeString(dir.resolve("job.yaml"), "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {}\n");
        Files.writeString(dir.resolve("kustomization.yaml"), """
                resources: [job.yaml]
                patches:
                  - target: {kind: Job, name: j}
                    patch: '[{op: replace, path: /spec/completions, value: 2}]'
                """);
        assertThatThrownBy(() -> MiniKustomize.render(dir)).hasMessageContaining("nothing at that path");
    }

    /** Where kubectl is installed, its kustomize must render each overlay exactly as MiniKustomize does. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void kubectlKustomizeRendersTheSameDocuments(String overlay) throws Exception {
        Optional<Path> kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(d -> Path.of(d, "kubectl")).filter(Files::isExecutable).findFirst();
        Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not on the PATH: only the Java rendering is checked");
        Path out = Files.createTempFile("kustomize-" + overlay, ".yaml");
        try {
            Process p = new ProcessBuilder(kubectl.get().toString(), "kustomize",
                    KUBERNETES.resolve("overlays").resolve(overlay).toString())
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize finished").isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(keyed(MiniKustomize.readDocuments(out))).isEqualTo(keyed(render(overlay)));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static Map<String, JsonNode> keyed(List<ObjectNode> docs) {
        return docs.stream().collect(Collectors.toMap(
                d -> d.path("kind").asText() + "/" + d.path("metadata").path("name").asText(), d -> d, (a, b) -> a,
                TreeMap::new));
    }

    private static List<ObjectNode> render(String overlay) throws IOException {
        return MiniKustomize.render(KUBERNETES.resolve("overlays").resolve(overlay));
    }

    private static Map<String, HasMetadata> byName(String overlay) throws IOException {
        return StrictKubernetesModel.parseAll(render(overlay)).stream().collect(Collectors.toMap(
                r -> r.getKind() + "/" + r.getMetadata().getName(), r -> r));
    }

    private static String sweepGroup(String overlay) throws IOException {
        Job sweep = (Job) byName(overlay).get("Job/allsum-sweep");
        List<String> cmd = only(sweep.getSpec().getTemplate().getSpec()).getCommand();
        return cmd.get(cmd.indexOf("--group") + 1);
    }

    private static Container only(PodSpec pod) {
        assertThat(pod.getContainers()).hasSize(1);
        return pod.getContainers().getFirst();
    }

    private static Map<String, EnvVar> env(Container c) {
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
    }

    private static void assertTokenFromSecret(Container c) {
        EnvVar token = env(c).get("ALLSUM_TOKEN");
        assertThat(token).as("%s has ALLSUM_TOKEN", c.getName()).isNotNull();
        assertThat(token.getValue()).as("the token is never written into a manifest").isNull();
        assertThat(token.getValueFrom().getSecretKeyRef().getName()).isEqualTo(TOKEN_SECRET);
        assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
    }
}
