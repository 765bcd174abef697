# The PyTorch way to run ./allsum's default job, for a side-by-side wall-clock comparison: 4 processes (spawned as
# torchrun would, one per rank), Gloo over loopback TCP, float32 all-sum from 8 B to 64 MiB (factor 2), 5 warm-up
# and 20 timed iterations per size, every element checked. Rank 0 prints one line per size.
# Usage: python3 gloo_sweep.py [ranks] [max_bytes]
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run_rank(rank, ranks, port, max_bytes):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    expected = ranks * (ranks + 1) / 2
    size = 8
    while size <= max_bytes:
        buf = torch.full((max(size // 4, 1),), float(rank + 1))
        for _ in range(5):
            dist.all_reduce(buf)
        dist.barrier()
        start = time.perf_counter()
        for _ in range(20):
            dist.all_reduce(buf)
        micros = (time.perf_counter() - start) / 20 * 1e6
        buf.fill_(float(rank + 1))
        dist.all_reduce(buf)
        wrong = int((buf != expected).sum())
        if rank == 0:
            algbw = size / micros / 1e3
            print(f"{size:12d} {micros:10.1f} {algbw:7.2f} {algbw * 2 * (ranks - 1) / ranks:7.2f} {wrong:6d}",
                  flush=True)
        size *= 2
    dist.destroy_process_group()


if __name__ == "__main__":
    ranks = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    max_bytes = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
    print(f"# gloo all_reduce float32 sum, {ranks} processes: size(B) time(us) algbw busbw #wrong", flush=True)
    mp.spawn(run_rank, args=(ranks, 29500 + os.getpid() % 400, max_bytes), nprocs=ranks, join=True)
