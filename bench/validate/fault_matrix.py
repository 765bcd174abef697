#!/usr/bin/env python3
"""The fault matrix of `allsum validate`: real processes, real faults, detection counted.

Starts a rendezvous server and N ring workers from a distribution (ALLSUM_HOME: bin/allsum-server, bin/allsum-worker,
bin/allsum), on network-namespace hosts (2 ranks each) where `ip netns` works, else on loopback (no link rows). Then,
for each row, injects the fault into one victim (a rank, or a host's link; a different one each run), runs
`allsum validate --server ... --json`, lifts the fault, and counts whether the verdict named the victim. The slowdown
is the row's median busbw at the sweep's largest size against the healthy rows'. Needs root for cgroups, namespaces,
tc and iptables; rows whose tool is missing are skipped, saying why.

  sudo ALLSUM_HOME=dist/allsum-linux-x86_64 python3 bench/validate/fault_matrix.py --runs 10 --healthy 50 --out /tmp/fm
  ... --rows healthy,cpu-5%/100ms,stop   (a comma list of row names or prefixes: healthy, cpu, stop, rate, delay, loss)
  ... --render /tmp/fm/runs.jsonl ...      (the table of runs recorded so far, by one or several calls)
"""
import argparse
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

PORT = 18080


def sh(*cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {(p.stderr or p.stdout).strip()}")
    return p.returncode == 0


class Loopback:
    """Every rank on this host's loopback: CPU rows only."""
    links = False

    def __init__(self, hosts):
        self.hosts = hosts

    def server_address(self):
        return "127.0.0.1"

    def address(self, host):
        return "127.0.0.1"

    def prefix(self, host):
        return []

    def close(self):
        pass


class Netns:
    """Hosts as network namespaces on one bridge (in a switch namespace); host i is 10.A.B.(i+1), this one .254."""
    links = True

    def __init__(self, hosts):
        self.id = f"fm{os.getpid() % 10000}"
        self.subnet = f"10.{random.randint(100, 249)}.{random.randint(1, 249)}"
        self.switch = f"{self.id}-sw"
        self.hosts = []
        self.root = f"{self.id}r"
        sh("ip", "netns", "add", self.switch)
        try:
            sh("ip", "-n", self.switch, "link", "set", "lo", "up")
            sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
            sh("ip", "-n", self.switch, "link", "set", "br0", "up")
            for i in range(hosts):
                ns = f"{self.id}-h{i}"
                sh("ip", "netns", "add", ns)
                self.hosts.append(ns)
                sh("ip", "-n", ns, "link", "set", "lo", "up")
                sh("ip", "-n", self.switch, "link", "add", f"p{i}", "type", "veth", "peer", "name", "eth0", "netns", ns)
                sh("ip", "-n", self.switch, "link", "set", f"p{i}", "master", "br0", "up")
                sh("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
                sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "link", "add", self.root, "type", "veth", "peer", "name", "up0", "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", "up0", "master", "br0", "up")
            sh("ip", "addr", "add", f"{self.subnet}.254/24", "dev", self.root)
            sh("ip", "link", "set", self.root, "up")
        except Exception:
            self.close()
            raise

    def server_address(self):
        return f"{self.subnet}.254"

    def address(self, host):
        return f"{self.subnet}.{host + 1}"

    def prefix(self, host):
        return ["ip", "netns", "exec", self.hosts[host]]

    def close(self):
        sh("ip", "link", "del", self.root, check=False)
        for ns in self.hosts + [self.switch]:
            sh("ip", "netns", "del", ns, check=False)


# ---- faults: each is a context manager on one victim ------------------------------------------------------------

class CpuQuota:
    """The victim's whole process in a cgroup of its own with a CFS quota (cgroup v2 cpu.max, else v1)."""

    def __init__(self, percent, period_ms):
        self.quota = int(period_ms * 1000 * percent / 100)
        self.period = period_ms * 1000
        self.name = f"cpu-{percent}%/{period_ms}ms"

    @staticmethod
    def hierarchy():
        v1 = v2 = None
        for line in Path("/proc/mounts").read_text().splitlines():
            f = line.split()
            if f[2] == "cgroup2" and "cpu" in (Path(f[1]) / "cgroup.controllers").read_text().split():
                v2 = Path(f[1])
            elif f[2] == "cgroup" and "cpu" in f[3].split(","):
                v1 = Path(f[1])
        return (v2, True) if v2 else (v1, False)

    def missing(self):
        root, v2 = self.hierarchy()
        if root is None:
            return "no cgroup hierarchy has the cpu controller"
        if self.quota < 1000:
            return f"a quota of {self.quota} us: the kernel's CFS refuses quotas under 1 ms"
        if v2 and "cpu" not in (root / "cgroup.subtree_control").read_text().split():
            try:
                (root / "cgroup.subtree_control").write_text("+cpu")
            except OSError as e:
                return f"cannot enable cpu in {root}/cgroup.subtree_control: {e}"
        probe = root / f"allsum-fm-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as e:
            return f"cannot create a cgroup under {root}: {e}"
        return None

    def apply(self, victim):
        root, v2 = self.hierarchy()
        self.dir = root / f"allsum-fm-{os.getpid()}"
        self.dir.mkdir(exist_ok=True)
        if v2:
            (self.dir / "cpu.max").write_text(f"{self.quota} {self.period}")
        else:
            (self.dir / "cpu.cfs_period_us").write_text(str(self.period))
            (self.dir / "cpu.cfs_quota_us").write_text(str(self.quota))
        self.pid = victim.pid
        for line in Path(f"/proc/{self.pid}/cgroup").read_text().splitlines():
            hid, ctl, path = line.split(":", 2)
            if (v2 and hid == "0") or (not v2 and "cpu" in ctl.split(",")):
                self.origin = root / path.lstrip("/")
        (self.dir / "cgroup.procs").write_text(str(self.pid))

    def throttled(self):
        """Seconds the cgroup's CFS quota held the victim back so far, and in how many of how many periods."""
        stat = dict(l.split() for l in (self.dir / "cpu.stat").read_text().splitlines())
        seconds = int(stat["throttled_usec"]) / 1e6 if "throttled_usec" in stat else int(stat["throttled_time"]) / 1e9
        return round(seconds, 3), int(stat["nr_throttled"]), int(stat["nr_periods"])

    def lift(self):
        (self.origin / "cgroup.procs").write_text(str(self.pid))
        self.dir.rmdir()


class StopBursts:
    """SIGSTOP for burst_ms every every_ms, from a thread, SIGCONT at the end of each burst and when lifted."""

    def __init__(self, burst_ms, every_ms):
        self.burst, self.every = burst_ms / 1000, every_ms / 1000
        self.name = f"stop-{burst_ms}ms/{every_ms}ms"

    @staticmethod
    def missing():
        return None

    def apply(self, victim):
        self.pid, self.done = victim.pid, threading.Event()

        def loop():
            while not self.done.wait(self.every - self.burst):
                os.kill(self.pid, signal.SIGSTOP)
                time.sleep(self.burst)
                os.kill(self.pid, signal.SIGCONT)
        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()

    def lift(self):
        self.done.set()
        self.thread.join()
        os.kill(self.pid, signal.SIGCONT)


class LinkFault:
    """A qdisc on both ends of one host's cable (its eth0 and its switch port), or random drops into and out of it."""

    def __init__(self, name, qdisc=None, loss=None):
        self.name, self.qdisc, self.loss = name, qdisc, loss

    def missing(self, net):
        if not net.links:
            return "no network namespaces here: every rank shares loopback"
        probe = f"fmprobe{os.getpid()}"
        sh("ip", "netns", "add", probe)
        try:
            if self.qdisc:
                if not sh("ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "lo", "root", *self.qdisc,
                          check=False):
                    return f"tc qdisc {' '.join(self.qdisc)} is refused (no sch_{self.qdisc[0]} in this kernel)"
            else:
                if not sh("ip", "netns", "exec", probe, "iptables", "-A", "INPUT", "-m", "statistic", "--mode",
                          "random", "--probability", "0.01", "-j", "DROP", check=False):
                    return "iptables' statistic match is unavailable"
        finally:
            sh("ip", "netns", "del", probe, check=False)
        return None

    def apply(self, victim):
        net, h = victim.net, victim.host
        self.undo = []
        if self.qdisc:
            for ns, dev in ((net.hosts[h], "eth0"), (net.switch, f"p{h}")):
                sh("ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", *self.qdisc)
                self.undo.append(("ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"))
        else:
            rule = ["-m", "statistic", "--mode", "random", "--probability", str(self.loss), "-j", "DROP"]
            sh("ip", "netns", "exec", net.hosts[h], "iptables", "-A", "INPUT", *rule)
            self.undo.append(("ip", "netns", "exec", net.hosts[h], "iptables", "-D", "INPUT", *rule))
            for other in range(len(net.hosts)):
                if other != h:
                    src = ["-s", net.address(h)]
                    sh("ip", "netns", "exec", net.hosts[other], "iptables", "-A", "INPUT", *src, *rule)
                    self.undo.append(("ip", "netns", "exec", net.hosts[other], "iptables", "-D", "INPUT", *src,
                                      *rule))

    def lift(self):
        for cmd in self.undo:
            sh(*cmd, check=False)


class Healthy:
    name = "healthy"

    @staticmethod
    def missing():
        return None

    def apply(self, victim):
        pass

    def lift(self):
        pass


def rows():
    out = [Healthy()]
    for period in (100, 10):
        for percent in (50, 20, 10, 5):
            out.append(CpuQuota(percent, period))
    out.append(StopBursts(50, 250))
    out += [LinkFault("rate-1gbit", qdisc=["tbf", "rate", "1gbit", "burst", "256kb", "latency", "50ms"]),
            LinkFault("rate-200mbit", qdisc=["tbf", "rate", "200mbit", "burst", "64kb", "latency", "100ms"]),
            LinkFault("delay-2ms", qdisc=["netem", "delay", "2ms"]),
            LinkFault("loss-1%", loss=0.01),
            LinkFault("loss-0.1%", loss=0.001)]
    return out


# ---- the cluster ---------------------------------------------------------------------------------------------------

class Rank:
    def __init__(self, rank, host, net, proc):
        self.rank, self.host, self.net, self.proc = rank, host, net, proc
        self.pid = java_pid(proc.pid)


def java_pid(pid, deadline=30):
    """The JVM under a launcher script (the scripts exec, so usually the pid itself)."""
    end = time.time() + deadline
    while time.time() < end:
        todo = [pid]
        while todo:
            p = todo.pop()
            try:
                if Path(f"/proc/{p}/comm").read_text().strip() == "java":
                    return p
                for task in Path(f"/proc/{p}/task").iterdir():
                    todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"no java process under pid {pid} after {deadline} s")


def start_cluster(home, net, ranks, hosts, token, logs):
    env = dict(os.environ, ALLSUM_TOKEN=token)
    server = subprocess.Popen([f"{home}/bin/allsum-server", f"--server.port={PORT}", "--server.address=0.0.0.0"],
                              env=env, stdout=open(logs / "server.log", "w"), stderr=subprocess.STDOUT)
    url = f"http://{net.server_address()}:{PORT}"
    workers = []
    for r in range(ranks):
        h = r * hosts // ranks
        wenv = dict(env, ALLSUM_SERVER=url, ALLSUM_GROUP="matrix", ALLSUM_RANK=str(r),
                    ALLSUM_WORLD_SIZE=str(ranks), ALLSUM_BACKEND="ring")
        p = subprocess.Popen(net.prefix(h) + [f"{home}/bin/allsum-worker", f"--server.port={19100 + r}"], env=wenv,
                             stdout=open(logs / f"worker-{r}.log", "w"), stderr=subprocess.STDOUT)
        workers.append(Rank(r, h, net, p))
    return server, url, workers


def cpu_times(pid):
    """Seconds a JVM's threads ran and waited runnable (Linux schedstat: run time, run delay), summed; None if gone."""
    run = delay = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                fields = (task / "schedstat").read_text().split()
            except OSError:
                continue
            run, delay = run + int(fields[0]), delay + int(fields[1])
    except OSError:
        return None
    return run / 1e9, delay / 1e9


def validate(home, url, token, out, wait):
    start = time.time()
    p = subprocess.run([f"{home}/bin/allsum", "validate", "--server", url, "--group", "matrix", "--token", token,
                        "--timeout", wait, "-q", "--json", str(out)],
                       capture_output=True, text=True, timeout=700)
    wall = time.time() - start
    try:
        record = json.loads(out.read_text())
    except (OSError, ValueError):
        record = {"verdict": "failed", "error": (p.stderr or p.stdout).strip()[-400:]}
    return record, wall, p.returncode


def file_name(row):
    """A row's name as a file name: cpu-5%/10ms -> cpu-5pct_10ms."""
    return row.replace("/", "_").replace("%", "pct")


def busbw(record):
    results = ((record.get("job") or {}).get("results")) or []
    return results[-1]["busBandwidthGBps"] if results else None


def judge(record, fault, victim, workers):
    """(named the victim, suspects that are not the victim) for one run."""
    suspects = record.get("suspects") or []
    host_fault = isinstance(fault, LinkFault)
    victim_ranks = {w.rank for w in workers if w.host == victim.host} if host_fault else {victim.rank}
    victim_host = victim.net.address(victim.host)
    hit, wrong = False, []
    for s in suspects:
        ranks = {s.get("rank"), s.get("peerRank")} - {None, -1}
        ours = bool(ranks & victim_ranks) or (s.get("kind") == "host" and s.get("host") == victim_host
                                               and host_fault)
        if ours and not isinstance(fault, Healthy):
            hit = True
        else:
            wrong.append(f"{s.get('kind')} {s.get('rank')}")
    return hit, wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--runs", type=int, default=10, help="runs per fault row")
    ap.add_argument("--healthy", type=int, default=50, help="runs of the healthy row")
    ap.add_argument("--rows", default="", help="comma list of row names or prefixes (default: all)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/allsum-fault-matrix"))
    ap.add_argument("--loopback", action="store_true", help="no namespaces even where they work")
    ap.add_argument("--render", type=Path, nargs="+", help="only print the table of these runs.jsonl files")
    a = ap.parse_args()
    if a.render:
        results = {}
        for f in a.render:
            for line in f.read_text().splitlines():
                run = json.loads(line)
                results.setdefault(run["row"], []).append(run)
        print(render(results), end="")
        return
    home = os.environ.get("ALLSUM_HOME") or sys.exit("set ALLSUM_HOME to an unpacked allsum distribution")
    a.out.mkdir(parents=True, exist_ok=True)
    wanted = [w for w in a.rows.split(",") if w]
    chosen = [r for r in rows() if not wanted or any(r.name == w or r.name.startswith(w) for w in wanted)]
    net = None
    if not a.loopback:
        try:
            net = Netns(a.hosts)
        except Exception as e:
            print(f"# no network namespaces ({e}); every rank on loopback, link rows skipped", flush=True)
    net = net or Loopback(a.hosts)
    token = secrets.token_hex(16)
    server, url, workers = start_cluster(home, net, a.ranks, a.hosts, token, a.out)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} cores, {a.ranks} ring ranks on "
          f"{a.hosts if net.links else 1} host(s) ({type(net).__name__}), server {url}", flush=True)
    results = {}
    try:
        print(f"# waiting up to 120 s for the server at {url} to accept connections", flush=True)
        end = time.time() + 120
        while True:
            try:
                socket.create_connection((net.server_address(), PORT), timeout=2).close()
                break
            except OSError:
                if time.time() > end:
                    raise RuntimeError(f"the server at {url} did not accept a connection in 120 s")
                time.sleep(0.5)
        print("# warm-up validation (unmeasured): waiting up to 180 s for every rank to join", flush=True)
        record, wall, rc = validate(home, url, token, a.out / "warmup.json", "180")
        print(f"# warm-up: {record.get('verdict')} in {wall:.1f} s {record.get('error') or ''}", flush=True)
        runs_file = open(a.out / "runs.jsonl", "a")
        for row in chosen:
            why = row.missing(net) if isinstance(row, LinkFault) else row.missing()
            if why:
                print(f"{row.name}: skipped: {why}", flush=True)
                continue
            n = a.healthy if isinstance(row, Healthy) else a.runs
            results[row.name] = []
            for i in range(n):
                if isinstance(row, LinkFault):
                    victim = workers[(i % a.hosts) * a.ranks // a.hosts]
                else:
                    victim = workers[(1 + 3 * i) % a.ranks]
                row.apply(victim)
                before = [cpu_times(w.pid) for w in workers]
                try:
                    record, wall, rc = validate(home, url, token, a.out / f"{file_name(row.name)}-{i}.json", "600")
                finally:
                    throttled = row.throttled() if isinstance(row, CpuQuota) else None
                    row.lift()
                after = [cpu_times(w.pid) for w in workers]
                # each rank's share of the validation's wall time run and waited runnable (not a verdict's input)
                cpu = {w.rank: [round((x[k] - b[k]) / wall, 3) for k in (0, 1)]
                       for w, b, x in zip(workers, before, after) if b and x and wall > 0}
                hit, wrong = judge(record, row, victim, workers)
                line = {"row": row.name, "run": i, "victim": victim.rank, "host": victim.host,
                        "verdict": record.get("verdict"), "named": hit, "others": wrong, "busbw": busbw(record),
                        "wall": round(wall, 2), "exit": rc, "error": record.get("error"), "cpu": cpu,
                        "throttled": throttled,
                        "suspects": [f"{s.get('kind')} {s.get('rank')}: {s.get('reason')}"
                                     for s in record.get("suspects") or []]}
                results[row.name].append(line)
                runs_file.write(json.dumps(line) + "\n")
                runs_file.flush()
                print(f"{row.name} run {i + 1}/{n}: victim {victim.rank} (host {victim.host}), {line['verdict']}"
                      f"{', named' if hit else ''}{', others: ' + ', '.join(wrong) if wrong else ''}, busbw "
                      f"{line['busbw']}, {wall:.1f} s{': ' + str(line['error']) if line['error'] else ''}", flush=True)
                if throttled:
                    print(f"  quota: throttled {throttled[0]} s ({throttled[0] / wall:.0%} of the wall time), "
                          f"{throttled[1]} of {throttled[2]} periods", flush=True)
                if victim.rank in cpu:
                    others = sorted(v[1] for r, v in cpu.items() if r != victim.rank)
                    print(f"  run delay: victim {cpu[victim.rank][1]:.0%} of the wall time, the others' median "
                          f"{others[len(others) // 2]:.0%}, highest {others[-1]:.0%}", flush=True)
    finally:
        for w in workers:
            w.proc.terminate()
        server.terminate()
        for p in [w.proc for w in workers] + [server]:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        net.close()
    table = render(results)
    (a.out / "table.md").write_text(table)
    print(table)


def render(results):
    healthy = [r["busbw"] for r in results.get("healthy", []) if r["busbw"]]
    base = statistics.median(healthy) if healthy else None
    lines = ["| fault | runs | busbw at 4 MiB, median GB/s | slowdown | victim named | other suspects | "
             "validate, median s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, runs in results.items():
        bws = [r["busbw"] for r in runs if r["busbw"]]
        bw = statistics.median(bws) if bws else None
        slow = f"{100 * (1 - bw / base):.0f}%" if bw and base else "-"
        named = "-" if name == "healthy" else f"{sum(r['named'] for r in runs)}/{len(runs)}"
        hit = sum(1 for r in runs if r['others'])
        others = f"{sum(len(r['others']) for r in runs)} in {hit} runs" if hit else "0"
        lines.append(f"| {name} | {len(runs)} | {bw:.3f} | {slow} | {named} | {others} | "
                     f"{statistics.median(r['wall'] for r in runs):.1f} |" if bw else
                     f"| {name} | {len(runs)} | - | - | {named} | {others} | "
                     f"{statistics.median(r['wall'] for r in runs):.1f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
