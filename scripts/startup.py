#!/usr/bin/env python3
"""How fast `warden serve` answers /api/health after it is started, and its
idle RSS 3 s later (first start in a fresh data directory, then restarts).

    scripts/startup.py target/release/warden
"""
import subprocess, time, socket, sys, os, tempfile, urllib.request
binary = sys.argv[1]
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def run(data):
    port = free_port()
    env = dict(os.environ); env.pop("WARDEN_PROVIDER", None); env["XDG_CONFIG_HOME"] = data + "/cfg"
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "serve", "--listen", f"127.0.0.1:{port}", "--data-dir", data], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1).read()
            break
        except Exception:
            time.sleep(0.002)
    ready = (time.monotonic() - t0) * 1000
    time.sleep(3)  # settle: background discovery, first admin
    status = open(f"/proc/{p.pid}/status").read()
    rss = [l for l in status.splitlines() if l.startswith(("VmRSS", "VmHWM", "Threads"))]
    p.terminate(); p.wait()
    return ready, rss
for label in ["first start", "restart", "restart", "restart", "restart"]:
    if label == "first start":
        data = tempfile.mkdtemp()
    ready, rss = run(data)
    print(f"{label}: health answered after {ready:.0f} ms; {' '.join(' '.join(r.split()) for r in rss)}")
