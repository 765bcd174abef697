# Runs a command (e.g. ./allsum) and prints, at each phase line it writes to stderr and at the end, the CPU seconds
# used so far by its descendant processes, summed by role (launcher, server, worker), sampled from /proc every 0.5 s.
# Usage: python3 bench/startup/cpu_by_role.py ./allsum [options]
import os, subprocess, sys, time, threading
tck = os.sysconf('SC_CLK_TCK')
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
last = {}
lock = threading.Lock()
def role_of(cmd):
    if 'rendezvous-server' in cmd: return 'server'
    if 'worker' in cmd: return 'worker'
    if 'launcher' in cmd: return 'launcher'
    return 'other:' + cmd[:60]
def sample():
    procs = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            st = open(f'/proc/{pid}/stat').read()
            procs.append((int(pid), int(st.rsplit(')', 1)[1].split()[1]), st))
        except Exception: pass
    tree = {p.pid}; changed = True
    while changed:
        changed = False
        for pid, ppid, _ in procs:
            if ppid in tree and pid not in tree: tree.add(pid); changed = True
    for pid, ppid, st in procs:
        if pid not in tree: continue
        f = st.rsplit(')', 1)[1].split()
        try: cmd = open(f'/proc/{pid}/cmdline').read().replace('\0', ' ')
        except Exception: continue
        with lock:
            # A process being reaped has an empty command line: keep the role it had.
            role = last[pid][0] if pid in last and not cmd.strip() else role_of(cmd)
            last[pid] = (role, (int(f[11]) + int(f[12])) / tck)
def totals():
    with lock:
        tot = {}
        for r, c in last.values(): tot[r] = tot.get(r, 0) + c
    return ", ".join(f"{r} {c:.1f}" for r, c in sorted(tot.items()))
t0 = time.time()
def reader():
    for line in p.stderr:
        if any(k in line for k in ('up in', 'joined', 'succeeded', 'running')):
            sample(); print(f"{time.time()-t0:7.1f}s {line.strip()[:70]} | cpu {totals()}", flush=True)
th = threading.Thread(target=reader); th.start()
while p.poll() is None:
    sample(); time.sleep(0.5)
th.join()
print(f"end {time.time()-t0:.1f}s rc={p.returncode} cpu {totals()} | load {open('/proc/loadavg').read().split()[0]}")
