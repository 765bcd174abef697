#!/usr/bin/env python3
"""PyTorch TCPStore reference for the rendezvous benchmark (issue 15): the same measurement as
`allsum bench-rendezvous`, "last join -> every rank holds what it needs", done the way torch.distributed hands
rank 0's id to the other ranks.

Per world size N: N-1 client ranks, spread over PROCS processes (rank r in process r mod PROCS, one thread and one
TCPStore client connection per rank, kept across rounds like allsum's keep-alive connections), each announce
themselves (store.add) and block in store.get(key). Once all N-1 are waiting, rank 0 (this process) publishes a
128-byte id with store.set at t0. Measured: t0 until the last rank's get returned (CLOCK_MONOTONIC, the same clock
in every process of the host). Median and max over the rounds.

With --fresh, every round (warm-up included) starts new client processes, as `allsum bench-rendezvous --fresh` does.

Usage: python3 bench/rendezvous/tcpstore_bench.py [--ranks 64,256,1024,4096,16384] [--procs 16] [--rounds 5] [--fresh]
Needs only torch (CPU is enough). Prints one `TCPSTORE n=... median_ms=...` line per world size, then a table.
"""
import argparse
import datetime
import multiprocessing as mp
import os
import resource
import statistics
import sys
import threading
import time


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def client_process(host, port, ranks, conn, timeout_s):
    """One client process: a TCPStore client per rank; per round, every rank announces itself and waits for the id."""
    import torch.distributed as dist

    raise_fd_limit()
    threading.stack_size(256 * 1024)
    timeout = datetime.timedelta(seconds=timeout_s)
    stores = [dist.TCPStore(host, port, is_master=False, wait_for_workers=False, timeout=timeout) for _ in ranks]
    conn.send(("ready", len(stores)))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        key, ready_key = msg
        received = [0] * len(stores)
        errors = []

        def rank_thread(i):
            try:
                stores[i].add(ready_key, 1)
                value = stores[i].get(key)  # blocks until rank 0 sets it
                received[i] = time.monotonic_ns()
                if len(value) != 128:
                    errors.append("rank %d got %d bytes" % (ranks[i], len(value)))
            except Exception as e:  # reported to the parent, which fails the round
                errors.append("rank %d: %s" % (ranks[i], e))

        threads = [threading.Thread(target=rank_thread, args=(i,), daemon=True) for i in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout_s)
        conn.send(("done", max(received) if received else 0, errors))


def start_children(n, procs, port, timeout_s):
    """PROCS client processes, ranks 1..n-1 spread over them, each with its stores connected."""
    ctx = mp.get_context("spawn")
    children = []
    for p in range(procs):
        parent_end, child_end = ctx.Pipe()
        ranks = list(range(1 + p, n, procs))
        proc = ctx.Process(target=client_process, args=("127.0.0.1", port, ranks, child_end, timeout_s), daemon=True)
        proc.start()
        children.append((proc, parent_end))
    for proc, conn in children:
        if not conn.poll(timeout_s):
            raise RuntimeError("client process %d did not connect its stores" % proc.pid)
        conn.recv()
    return children


def stop_children(children):
    for proc, conn in children:
        try:
            conn.send(None)
        except (BrokenPipeError, OSError):
            pass
    for proc, _ in children:
        proc.join(10)
        if proc.is_alive():
            proc.kill()


def measure(n, procs, rounds, warmup, timeout_s, fresh):
    import torch.distributed as dist

    timeout = datetime.timedelta(seconds=timeout_s)
    master = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timeout)
    port = master.port
    procs = max(1, min(procs, n - 1)) if n > 1 else 0
    children = [] if fresh else start_children(n, procs, port, timeout_s)
    results = []
    try:
        for r in range(warmup + rounds):
            if fresh:  # new processes for every round: each rank's get is its process's first
                children = start_children(n, procs, port, timeout_s)
            key, ready_key = "id/%d/%d" % (n, r), "ready/%d/%d" % (n, r)
            for _, conn in children:
                conn.send((key, ready_key))
            deadline = time.monotonic() + timeout_s
            while master.add(ready_key, 0) < n - 1:
                if time.monotonic() > deadline:
                    raise RuntimeError("n=%d: not every rank announced itself in time" % n)
                time.sleep(0.002)
            # An announced rank is about to call get: give the last ones time to be inside it, as allsum's parked joins are.
            time.sleep(0.2 + n / 20000)
            payload = os.urandom(128)
            t0 = time.monotonic_ns()
            master.set(key, payload)
            last = t0
            for proc, conn in children:
                if not conn.poll(timeout_s):
                    raise RuntimeError("n=%d: client process %d did not finish the round" % (n, proc.pid))
                _, latest, errors = conn.recv()
                if errors:
                    raise RuntimeError("n=%d: %s" % (n, "; ".join(errors[:3])))
                last = max(last, latest)
            ms = (last - t0) / 1e6
            label = "warm-up" if r < warmup else "round %d" % (r - warmup + 1)
            print("# %5d ranks %-8s: publish -> all hold the id %.2f ms" % (n, label, ms), file=sys.stderr, flush=True)
            if r >= warmup:
                results.append(ms)
            if fresh:
                stop_children(children)
                children = []
    finally:
        stop_children(children)
        del master
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="64,256,1024,4096,16384")
    parser.add_argument("--procs", type=int, default=16, help="client processes the ranks are spread over")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300, help="seconds, per round and per store operation")
    parser.add_argument("--fresh", action="store_true", help="new client processes for every round (warm-up included)")
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.ranks.split(",")]
    except ValueError:
        print("tcpstore_bench: --ranks must be a comma-separated list of integers, was %r" % args.ranks, file=sys.stderr)
        return 2
    if any(n < 2 for n in sizes) or args.procs < 1 or args.rounds < 1 or args.warmup < 0:
        print("tcpstore_bench: world sizes must be >= 2, --procs and --rounds >= 1, --warmup >= 0", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("tcpstore_bench: needs PyTorch (import torch failed)", file=sys.stderr)
        return 2
    raise_fd_limit()
    print("# TCPStore reference: torch %s, %d cpus, %d%s client processes, %d rounds (+%d warm-up)"
          % (torch.__version__, os.cpu_count(), args.procs, " fresh" if args.fresh else "", args.rounds, args.warmup),
          flush=True)
    rows = []
    for n in sizes:
        results = measure(n, args.procs, args.rounds, args.warmup, args.timeout, args.fresh)
        med, worst = statistics.median(results), max(results)
        print("TCPSTORE n=%d procs=%d rounds=%d median_ms=%.2f max_ms=%.2f" % (n, args.procs, len(results), med, worst),
              flush=True)
        rows.append((n, med, worst))
    print("%7s %12s %12s" % ("ranks", "median (ms)", "max (ms)"))
    for n, med, worst in rows:
        print("%7d %12.2f %12.2f" % (n, med, worst))
    print("# publish -> all hold the id: rank 0's store.set until the last waiting store.get returned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
