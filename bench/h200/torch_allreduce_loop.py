# PyTorch's side of the library's --caller figures: one rank, NCCL, float32 sum all_reduce from this thread, wall clock.
#   python3 torch_allreduce_loop.py [ITERS [WARMUP [MAX_BYTES]]]
# "enqueued": ITERS all_reduce calls, then one torch.cuda.synchronize (as bench-library --caller stream);
# "synchronized": torch.cuda.synchronize after each call (as bench-library --caller blocking). Rows as nccl-tests'.
import os, sys, time
import torch, torch.distributed as dist

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 500
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 50
max_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 64 << 20
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29512")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
buf = torch.ones(max_bytes // 4, dtype=torch.float32, device="cuda:0")
for _ in range(10_000):  # as the library's init() and bench-library's warm calls
    dist.all_reduce(buf[:1])
torch.cuda.synchronize()
for mode in ("enqueued", "synchronized"):
    print(f"## torch all_reduce, {mode}, torch {torch.__version__}", flush=True)
    print("#       size         count      type   redop    root     time   algbw   busbw #wrong")
    size = 8
    while size <= max_bytes:
        t = buf[: size // 4]
        each = mode == "synchronized"
        for _ in range(warmup):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        start = time.perf_counter_ns()
        for _ in range(iters):
            dist.all_reduce(t)
            if each:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        us = (time.perf_counter_ns() - start) / 1e3 / iters
        algbw = size / us / 1e3
        print(f"{size:12d}  {size // 4:12d}     float     sum      -1  {us:7.2f}  {algbw:6.2f}  {algbw:6.2f}    N/A", flush=True)
        size *= 2
dist.destroy_process_group()
