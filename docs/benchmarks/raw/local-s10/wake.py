import socket, time, threading, statistics, sys, os
def run(idle):
    a, b = socket.socketpair()
    lat = []
    for i in range(30):
        t = [0]
        def reader():
            a.recv(1); t[0] = time.monotonic_ns()
        th = threading.Thread(target=reader); th.start()
        time.sleep(idle)
        s = time.monotonic_ns(); b.send(b'x'); th.join()
        lat.append((t[0] - s) / 1e3)
    return statistics.median(lat), max(lat)
for idle in (0.001, 0.2, 1.0):
    print("python idle %.3f s: wake median %.0f us max %.0f us" % ((idle,) + run(idle)))
