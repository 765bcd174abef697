// allsum native baseline: float32 sum all-reduce on libnccl, timed like nccl-tests (CUDA events around `iters`
// back-to-back launches after `warmup` launches, one sync, divided by iters), verified, printed as nccl-tests rows.
// One process per GPU. World size 1: no options needed. Several GPUs: run one process per GPU with
//   --rank R --nranks N --id-file PATH   (rank 0 writes the 128-byte ncclUniqueId to PATH, the others poll for it)
//   --nonblocking 1   build the communicator non-blocking (config.blocking = 0), as the Java backend does
// Options: -b MIN -e MAX -f FACTOR -n ITERS -w WARMUP -d DEVICE (default: LOCAL_RANK, else rank, else 0)
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)
#define NCCL(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
  fprintf(stderr, "%s failed: %s\n", #call, ncclGetErrorString(r_)); return 1; } } while (0)

static size_t parse_size(const char* s) {
  char* end; double v = strtod(s, &end);
  switch (*end) { case 'K': case 'k': v *= 1 << 10; break; case 'M': case 'm': v *= 1 << 20; break;
                  case 'G': case 'g': v *= 1 << 30; break; }
  return (size_t)v;
}

static double now_us(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// Rank 0 writes the id to a temp file and renames it (atomic); the others poll until it appears (60 s deadline).
static int exchange_id(ncclUniqueId* id, int rank, const char* path) {
  if (rank == 0) {
    NCCL(ncclGetUniqueId(id));
    char tmp[4096]; snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = fopen(tmp, "wb");
    if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0) {
      perror("writing the id file"); return 1;
    }
    return 0;
  }
  for (double deadline = now_us() + 60e6; now_us() < deadline; usleep(10000)) {
    FILE* f = fopen(path, "rb");
    if (!f) continue;
    size_t got = fread(id, sizeof *id, 1, f); fclose(f);
    if (got == 1) return 0;
  }
  fprintf(stderr, "rank %d: no id in %s after 60 s\n", rank, path);
  return 1;
}

// Expected value of element i after summing every rank's input (rank r contributes (i % 11) - 5 + r).
static float input_value(size_t i, int rank) { return (float)((int)(i % 11) - 5 + rank); }
static float expected_value(size_t i, int nranks) {
  return (float)(nranks * ((int)(i % 11) - 5) + nranks * (nranks - 1) / 2);
}

// Waits until a non-blocking communicator leaves ncclInProgress (no-op for a blocking one).
static void await_comm(ncclComm_t comm) {
  ncclResult_t state = ncclInProgress;
  while (state == ncclInProgress) {
    ncclResult_t rc = ncclCommGetAsyncError(comm, &state);
    if (rc != ncclSuccess) state = rc;
  }
  if (state != ncclSuccess) { fprintf(stderr, "NCCL async error: %s\n", ncclGetErrorString(state)); exit(1); }
}

// A collective on a non-blocking communicator may answer ncclInProgress: wait for it like the Java backend does.
#define COLL(call, comm) do { ncclResult_t c_ = (call); \
    if (c_ == ncclInProgress) await_comm(comm); else NCCL(c_); } while (0)

int main(int argc, char** argv) {
  size_t min_bytes = 8, max_bytes = 1 << 30, factor = 2;
  int iters = 20, warmup = 5, rank = 0, nranks = 1, device = -1, nonblocking = 0, graph = 0;
  const char* id_file = NULL;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i]; const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) { fprintf(stderr, "option %s needs a value\n", a); return 2; }
    if (!strcmp(a, "-b")) min_bytes = parse_size(v);
    else if (!strcmp(a, "-e")) max_bytes = parse_size(v);
    else if (!strcmp(a, "-f")) factor = strtoul(v, NULL, 10);
    else if (!strcmp(a, "-n")) iters = atoi(v);
    else if (!strcmp(a, "-w")) warmup = atoi(v);
    else if (!strcmp(a, "-d")) device = atoi(v);
    else if (!strcmp(a, "--rank")) rank = atoi(v);
    else if (!strcmp(a, "--nranks")) nranks = atoi(v);
    else if (!strcmp(a, "--id-file")) id_file = v;
    else if (!strcmp(a, "--nonblocking")) nonblocking = atoi(v);
    else if (!strcmp(a, "-G")) graph = atoi(v);  // nccl-tests' -G: replays of a graph of the iters launches
    else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    i++;
  }
  if (nranks > 1 && !id_file) { fprintf(stderr, "--nranks > 1 needs --id-file\n"); return 2; }
  if (device < 0) device = getenv("LOCAL_RANK") ? atoi(getenv("LOCAL_RANK")) : (nranks > 1 ? rank : 0);
  CUDA(cudaSetDevice(device));

  ncclUniqueId id;
  if (nranks == 1) NCCL(ncclGetUniqueId(&id));
  else if (exchange_id(&id, rank, id_file)) return 1;
  double t0 = now_us();
  ncclComm_t comm;
  // --nonblocking 1 builds the communicator the way allsum's Java backend does (config.blocking = 0, then poll
  // ncclCommGetAsyncError), so per-call costs can be compared like for like.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = nonblocking ? 0 : 1;
  ncclResult_t init_rc = ncclCommInitRankConfig(&comm, nranks, id, rank, &config);
  if (init_rc != ncclSuccess && init_rc != ncclInProgress) NCCL(init_rc);
  await_comm(comm);
  double init_ms = (now_us() - t0) / 1e3;

  size_t max_count = max_bytes / sizeof(float);
  float *send, *recv, *host = (float*)malloc(max_count * sizeof(float));
  CUDA(cudaMalloc((void**)&send, max_count * sizeof(float)));
  CUDA(cudaMalloc((void**)&recv, max_count * sizeof(float)));
  for (size_t i = 0; i < max_count; i++) host[i] = input_value(i, rank);
  cudaStream_t stream; cudaEvent_t start, stop;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA(cudaEventCreate(&start)); CUDA(cudaEventCreate(&stop));
  int version; NCCL(ncclGetVersion(&version));

  if (rank == 0) {
    printf("# allsum native all-reduce baseline: %d rank(s), NCCL %d, %s communicator, init %.1f ms\n", nranks, version,
           nonblocking ? "non-blocking" : "blocking", init_ms);
    if (graph > 0)
      printf("# CUDA-graph mode (-G %d): time = GPU time of %d replays of a graph of %d all-reduces / (%d x %d); host(us) ="
             " host wall of capture, instantiation and replays per all-reduce\n", graph, graph, iters, graph, iters);
    printf("#                                                       out-of-place                          in-place\n");
    printf("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong  host(us)\n");
    printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)          /call\n");
  }
  double bus_factor = 2.0 * (nranks - 1) / nranks, bus_sum = 0;
  long long wrong_total = 0; int rows = 0;
  for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= factor) {
    size_t count = bytes / sizeof(float), size = count * sizeof(float);
    double us[2], host_us = 0; long long wrong[2];
    for (int pass = 0; pass < 2; pass++) {
      float* out = pass == 1 ? send : recv;
      CUDA(cudaMemcpy(send, host, size, cudaMemcpyHostToDevice));
      if (pass == 0) CUDA(cudaMemset(recv, 0x5A, size));
      // In-place sums accumulate over warm-up + iters; verify those launches against the single-launch value by
      // restoring the input before each launch would change the timing, so in-place is checked on world size 1 only
      // (where a sum keeps the input) and out-of-place always.
      for (int w = 0; w < warmup; w++) COLL(ncclAllReduce(send, out, count, ncclFloat, ncclSum, comm, stream), comm);
      CUDA(cudaStreamSynchronize(stream));
      double h0 = now_us(), h1;
      long calls = iters;
      if (graph > 0) {
        // As nccl-tests -G: capture the iters launches once, replay once untimed, time `graph` replays.
        cudaGraph_t g; cudaGraphExec_t ge;
        CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int it = 0; it < iters; it++) COLL(ncclAllReduce(send, out, count, ncclFloat, ncclSum, comm, stream), comm);
        CUDA(cudaStreamEndCapture(stream, &g));
        CUDA(cudaGraphInstantiate(&ge, g, 0));
        CUDA(cudaGraphLaunch(ge, stream));
        CUDA(cudaStreamSynchronize(stream));
        CUDA(cudaEventRecord(start, stream));
        for (int l = 0; l < graph; l++) CUDA(cudaGraphLaunch(ge, stream));
        CUDA(cudaEventRecord(stop, stream));
        CUDA(cudaEventSynchronize(stop));
        h1 = now_us();
        CUDA(cudaGraphExecDestroy(ge)); CUDA(cudaGraphDestroy(g));
        calls = (long)iters * graph;
      } else {
        CUDA(cudaEventRecord(start, stream));
        h0 = now_us();
        for (int it = 0; it < iters; it++) COLL(ncclAllReduce(send, out, count, ncclFloat, ncclSum, comm, stream), comm);
        h1 = now_us();
        CUDA(cudaEventRecord(stop, stream));
        CUDA(cudaEventSynchronize(stop));
      }
      float ms; CUDA(cudaEventElapsedTime(&ms, start, stop));
      us[pass] = ms * 1e3 / calls;
      if (pass == 0) host_us = (h1 - h0) / calls;
      wrong[pass] = 0;
      if (pass == 0 || nranks == 1) {
        float* back = (float*)malloc(size);
        CUDA(cudaMemcpy(back, out, size, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < count; i++) {
          float want = pass == 0 ? expected_value(i, nranks) : input_value(i, rank);
          if (back[i] != want) wrong[pass]++;
        }
        free(back);
      }
    }
    double alg0 = size / (us[0] * 1e3), alg1 = size / (us[1] * 1e3);
    wrong_total += wrong[0] + wrong[1]; bus_sum += alg0 * bus_factor; rows++;
    if (rank == 0)
      printf("%12zu  %12zu  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6lld  %7.2f  %6.2f  %6.2f  %6lld  %8.2f\n",
             size, count, "float", "sum", -1, us[0], alg0, alg0 * bus_factor, wrong[0],
             us[1], alg1, alg1 * bus_factor, wrong[1], host_us);
  }
  if (rank == 0) {
    printf("# Out of bounds values : %lld %s\n", wrong_total, wrong_total == 0 ? "OK" : "FAILED");
    printf("# Avg bus bandwidth    : %.4f\n", rows ? bus_sum / rows : 0.0);
  }
  cudaEventDestroy(start); cudaEventDestroy(stop); cudaStreamDestroy(stream);
  cudaFree(send); cudaFree(recv); free(host);
  ncclCommDestroy(comm);
  if (rank == 0 && id_file) unlink(id_file);
  return wrong_total == 0 ? 0 : 1;
}
