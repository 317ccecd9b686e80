#!/usr/bin/env python3
"""Pod start benchmark: create -> Running (seen by a watch) with the real `k3c server`, side by
side with `podman run --runtime runc` of the same image in the same run, plus memory figures.

Not a test: it prints medians and ratios. Needs root (namespaces), /bin/busybox (Debian's
busybox-static) and a built k3c (default: <repo>/build/k3c). See doc/benchmarks.md.

Everything with mounts, containers or pods runs in mount (private), network (only lo) and PID
namespaces made here with unshare(1): this script re-runs itself there as PID 1 (`--inner`).
Killing that process ends the namespace and every process in it. The outer process then removes
the cgroups (/sys/fs/cgroup/*/k3c-bench-<pid>, leaf first) and the temp dir, also after a
failure or ctrl-C.
"""
import argparse
import base64
import concurrent.futures
import http.client
import io
import json
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse

import hashlib

IMAGE = "docker.io/library/busybox:1"
APPLETS = ["sh", "ash", "echo", "sleep", "cat", "ls", "id", "env", "hostname", "true", "false",
           "ps", "kill", "mkdir", "rm", "touch", "head", "tail", "grep", "test", "printf"]


# ---------------------------------------------------------------------------------------------
# The image: one layer of busybox-static, as test/images busybox_image builds it, in `docker
# save` layout (what k3c's airgap import and `podman load` both read).

def _tar(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, data, mode in entries:
            info = tarfile.TarInfo(name)
            info.mode = mode
            info.mtime = 0
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "sym":
                info.type = tarfile.SYMTYPE
                info.linkname = data
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def busybox_archive():
    with open("/bin/busybox", "rb") as f:
        binary = f.read()
    entries = [("bin", "dir", None, 0o755), ("bin/busybox", "file", binary, 0o755),
               ("etc", "dir", None, 0o755), ("tmp", "dir", None, 0o1777),
               ("root", "dir", None, 0o700)]
    entries += [("bin/" + a, "sym", "busybox", 0o777) for a in APPLETS]
    entries.append(("etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\n", 0o644))
    entries.append(("etc/group", "file", b"root:x:0:\n", 0o644))
    layer = _tar(entries)
    layer_hex = hashlib.sha256(layer).hexdigest()
    config = json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Cmd": ["sh"], "Env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_hex]},
    }).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = json.dumps([{"Config": config_name, "RepoTags": [IMAGE],
                            "Layers": [layer_hex + "/layer.tar"]}]).encode()
    files = [(layer_hex + "/layer.tar", layer), (config_name, config), ("manifest.json", manifest)]
    return _tar([(n, "file", d, 0o644) for n, d in files])


# ---------------------------------------------------------------------------------------------
# Outer process: host side set-up and clean-up.

def remove_cgroups(name):
    roots = ["/sys/fs/cgroup"] + [os.path.join("/sys/fs/cgroup", d)
                                  for d in os.listdir("/sys/fs/cgroup")]
    for root in roots:
        path = os.path.join(root, name)
        if os.path.isdir(path):
            _remove_tree(path)


def _remove_tree(path):
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            _remove_tree(entry.path)
    for _ in range(50):  # a cgroup whose last processes are still exiting is busy a moment
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.1)
    print(f"warning: could not remove cgroup {path}", file=sys.stderr)


def ensure_podman():
    if shutil.which("podman") and shutil.which("runc"):
        return ""
    print("podman/runc missing: installing with apt-get (podman runc conmon)", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "podman", "runc",
                        "conmon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0 or not shutil.which("podman"):
        return "could not install podman/runc: " + r.stderr.decode()[-300:]
    return ""


def outer(args):
    if os.geteuid() != 0:
        sys.exit("needs root (mount, network and PID namespaces)")
    if not os.access("/bin/busybox", os.X_OK):
        sys.exit("needs /bin/busybox (Debian's busybox-static)")
    if not os.access(args.k3c, os.X_OK):
        sys.exit(f"no k3c binary at {args.k3c} (build it: ninja -C build k3c)")
    podman_skip = "" if not args.no_podman else "--no-podman given"
    if not podman_skip:
        podman_skip = ensure_podman()
    cgroup = f"k3c-bench-{os.getpid()}"
    tmp = tempfile.mkdtemp(prefix="k3c-pod-bench-")
    libpod_parent_existed = os.path.isdir("/sys/fs/cgroup/memory/libpod_parent")
    # podman keeps its blob-info cache there whatever --root says; removed if it was not there
    podman_cache_existed = os.path.exists("/var/lib/containers/cache")
    child = None

    def on_signal(signo, _frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, on_signal)
    try:
        archive = busybox_archive()
        os.makedirs(os.path.join(tmp, "data/agent/images"))
        with open(os.path.join(tmp, "data/agent/images/busybox.tar"), "wb") as f:
            f.write(archive)
        with open(os.path.join(tmp, "busybox.tar"), "wb") as f:
            f.write(archive)
        if args.fs == "journaled-ext4":
            make_journaled_fs(os.path.join(tmp, "fs.img"))
        ip = shutil.which("ip") or "/usr/sbin/ip"
        cmd = ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--propagation",
               "private", "--mount-proc", "/bin/sh", "-c", ip + ' link set lo up && exec "$0" "$@"',
               sys.executable, os.path.abspath(__file__), "--inner", "--tmp", tmp,
               "--cgroup", cgroup, "--k3c", os.path.abspath(args.k3c), "--reps", str(args.reps),
               "--many", str(args.many), "--podman-skip", podman_skip,
               "--perf", os.path.abspath(args.perf) if args.perf else "", "--fs", args.fs]
        child = subprocess.Popen(cmd)
        rc = child.wait()
        child = None
        return rc
    except KeyboardInterrupt:
        print("interrupted: cleaning up", file=sys.stderr)
        return 130
    finally:
        if child is not None:
            child.kill()  # --kill-child: PID 1 of the namespace dies, and with it every process
            child.wait()
        remove_cgroups(cgroup)
        if not libpod_parent_existed:
            remove_cgroups("libpod_parent")
        shutil.rmtree(tmp, ignore_errors=True)
        if not podman_cache_existed:
            shutil.rmtree("/var/lib/containers/cache", ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Inner process: PID 1 of the namespaces. Starts the server, measures, prints.

def pct(values, p):
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, max(0, int(round(p / 100.0 * len(s) + 0.5)) - 1))]


class Api:
    """Just enough of a Kubernetes client: the admin kubeconfig's client cert over HTTPS."""

    def __init__(self, kubeconfig, tmp):
        import yaml  # noqa: imported here so that the outer process does not need it
        cfg = yaml.safe_load(open(kubeconfig))
        cluster = cfg["clusters"][0]["cluster"]
        user = cfg["users"][0]["user"]
        url = urllib.parse.urlparse(cluster["server"])
        self.host, self.port = url.hostname, url.port
        files = {}
        for key in ("certificate-authority-data", "client-certificate-data", "client-key-data"):
            path = os.path.join(tmp, key + ".pem")
            src = cluster if key.startswith("certificate") else user
            with open(path, "wb") as f:
                f.write(base64.b64decode(src[key]))
            files[key] = path
        self.ctx = ssl.create_default_context(cafile=files["certificate-authority-data"])
        self.ctx.load_cert_chain(files["client-certificate-data"], files["client-key-data"])
        self.local = threading.local()

    def conn(self, fresh=False):
        if fresh or getattr(self.local, "conn", None) is None:
            c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)
            if fresh:
                return c
            self.local.conn = c
        return self.local.conn

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        for attempt in range(2):
            c = self.conn()
            try:
                c.request(method, path, body=data, headers=headers)
                r = c.getresponse()
                payload = r.read()
                return r.status, json.loads(payload) if payload else {}
            except (http.client.HTTPException, OSError):
                self.local.conn = None
                if attempt:
                    raise


class RunningWatch:
    """One watch on the namespace's pods; notes when each pod is first seen Running."""

    def __init__(self, api, path):
        self.running = {}
        self.scheduled = {}  # first event with spec.nodeName: where the time goes
        self.cond = threading.Condition()
        _, lst = api.request("GET", path)
        rv = lst["metadata"]["resourceVersion"]
        self.conn = api.conn(fresh=True)
        self.conn.timeout = None  # a watch may be quiet for long: no read deadline
        self.conn.request("GET", f"{path}?watch=true&resourceVersion={rv}")
        self.resp = self.conn.getresponse()
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self):
        while True:
            line = self.resp.readline()
            if not line:
                return
            now = time.monotonic()
            ev = json.loads(line)
            obj = ev.get("object", {})
            name = obj.get("metadata", {}).get("name")
            if obj.get("spec", {}).get("nodeName") and name not in self.scheduled:
                self.scheduled[name] = now
            if obj.get("status", {}).get("phase") == "Running":
                name = obj["metadata"]["name"]
                with self.cond:
                    if name not in self.running:
                        self.running[name] = now
                        self.cond.notify_all()

    def wait(self, names, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(n in self.running for n in names):
                left = deadline - time.monotonic()
                if left <= 0:
                    missing = [n for n in names if n not in self.running]
                    raise TimeoutError(f"not Running after {timeout}s: {missing[:5]}...")
                self.cond.wait(left)
            return {n: self.running[n] for n in names}


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "pod-bench"}},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox:1",
                                     "imagePullPolicy": "IfNotPresent",
                                     "command": ["sleep", "3600"]}]}}


PODS = "/api/v1/namespaces/default/pods"


def create(api, name):
    t0 = time.monotonic()
    status, body = api.request("POST", PODS, pod(name))
    if status != 201:
        raise RuntimeError(f"create {name}: HTTP {status} {body.get('message')}")
    return t0


def delete_all(api, names, timeout=120):
    # DeleteOptions in the body, as kubectl sends them (k3c ignores ?gracePeriodSeconds=). Grace
    # 0 removes the pod at once; the kubelet's relist then kills the orphaned sandbox.
    for n in names:
        api.request("DELETE", f"{PODS}/{n}", {"gracePeriodSeconds": 0})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, lst = api.request("GET", PODS)
        if not lst.get("items"):
            return True
        time.sleep(0.2)
    return False


def proc_kb(pid, field, file="status"):
    try:
        with open(f"/proc/{pid}/{file}") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def k3c_processes(kind):
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[0].endswith(b"k3c") and argv[1] == kind.encode():
            out.append(int(pid))
    return out


def cpu_seconds(server_pid):
    """CPU (user+system) of the server, and of every other process in the namespace alive now
    (shims, containers) plus what the server's reaped children used."""
    tick = os.sysconf("SC_CLK_TCK")
    server = others = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = int(fields[11]) + int(fields[12])  # utime, stime
        if int(pid) == server_pid:
            server += used
            others += int(fields[13]) + int(fields[14])  # cutime, cstime
        else:
            others += used
    return server / tick, others / tick


def memory(server_pid):
    shims = k3c_processes("shim")
    return {"rss": proc_kb(server_pid, "VmRSS"),
            "pss": proc_kb(server_pid, "Pss", "smaps_rollup"),
            "shims": len(shims),
            "shim_rss": [proc_kb(p, "VmRSS") for p in shims],
            "shim_pss": [proc_kb(p, "Pss", "smaps_rollup") for p in shims]}


def podman_bench(tmp, cgroup, reps):
    base = ["podman", "--root", f"{tmp}/podman/root", "--runroot", f"{tmp}/podman/run",
            "--tmpdir", f"{tmp}/podman/tmp", "--cgroup-manager", "cgroupfs",
            "--events-backend", "none", "--runtime", "runc"]
    r = subprocess.run(base + ["load", "-i", f"{tmp}/busybox.tar"], capture_output=True)
    if r.returncode != 0:
        return None, "podman load failed: " + r.stderr.decode()[-400:]
    times = []
    for i in range(reps + 1):  # the first run (storage set-up) is a warm-up, not counted
        t0 = time.monotonic()
        r = subprocess.run(base + ["run", "-d", "--runtime", "runc", "--network", "none",
                                   "--cgroup-parent", f"/{cgroup}/podman",
                                   "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096",
                                   "--name", f"bench-{i}", IMAGE, "sleep", "3600"],
                           capture_output=True)
        dt = time.monotonic() - t0
        if r.returncode != 0:
            return None, "podman run failed: " + r.stderr.decode()[-400:]
        if i:
            times.append(dt)
    subprocess.run(base + ["rm", "-f", "-t", "0", "--all"], capture_output=True)
    return times, ""


# This machine's root ext4 runs without a journal ("mounted filesystem r/w without journal"),
# and journal-less ext4 checks every free inode it considers against recently deleted ones
# (find_inode_bit -> recently_deleted, reading inode table blocks). Back-to-back bursts, each
# deleting the files of 100 pods, then slow down run after run (100 pods: 1.5 s -> 4 s over
# eight runs, with either binary). A user's ext4 has a journal; the default measures on one,
# made here as a loop-mounted image inside the benchmark's own mount namespace.
def make_journaled_fs(image):
    with open(image, "wb") as f:
        f.truncate(1 << 30)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-N", "65536", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0", image], check=True)


def mount_journaled_fs(tmp):
    """Mounts tmp/fs.img on tmp/fs (this mount namespace only; the loop device is released
    when the namespace ends) and moves the prepared data dir onto it; returns the fs root."""
    root = f"{tmp}/fs"
    os.makedirs(root)
    subprocess.run(["mount", "-o", "loop", f"{tmp}/fs.img", root], check=True)
    shutil.copytree(f"{tmp}/data", f"{root}/data", symlinks=True)
    return root


def inner(args):
    tmp = args.tmp
    state = mount_journaled_fs(tmp) if args.fs == "journaled-ext4" else tmp
    port = 6443 + (os.getpid() % 1000)  # a fresh network namespace: any port is free
    with open(f"{tmp}/config.yaml", "w") as f:
        f.write(f"bind-address: 127.0.0.1\nhttps-listen-port: {port}\n")
    kubeconfig = f"{tmp}/kubeconfig.yaml"
    log = open(f"{tmp}/server.log", "wb")
    server = subprocess.Popen(
        [args.k3c, "server", "-c", f"{tmp}/config.yaml", "-d", f"{state}/data",
         "--write-kubeconfig", kubeconfig, "--node-name", "node-1",
         f"--kubelet-arg=cgroup-root=/{args.cgroup}",
         f"--kubelet-arg=pod-logs-dir={state}/pod-logs"],
        stdout=log, stderr=subprocess.STDOUT, env={"HOME": tmp, "PATH": "/usr/bin:/bin"})
    try:
        return measure(args, server, kubeconfig)
    except Exception as e:  # noqa: report with the server's last words
        print(f"FAILED: {e}", file=sys.stderr)
        log.flush()
        with open(f"{tmp}/server.log", "rb") as f:
            tail = f.read()[-3000:].decode(errors="replace")
        print("--- end of server log ---\n" + tail, file=sys.stderr)
        return 1
    finally:
        server.kill()
        server.wait()
        thaw_cgroups(args.cgroup)


def thaw_cgroups(name):
    """A server killed between a container's freeze and its thaw (kill_all) leaves the cgroup
    frozen: its processes cannot die, and this PID 1 could not exit (the kernel waits for every
    process of the namespace)."""
    root = os.path.join("/sys/fs/cgroup/freezer", name)
    for dirpath, _dirs, files in os.walk(root):
        if "freezer.state" in files:
            try:
                with open(os.path.join(dirpath, "freezer.state"), "w") as f:
                    f.write("THAWED")
            except OSError:
                pass


def wait_for(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:  # noqa: not up yet
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{what}: not after {timeout}s")


def measure(args, server, kubeconfig):
    t_start = time.monotonic()
    wait_for("kubeconfig", lambda: os.path.exists(kubeconfig) and os.path.getsize(kubeconfig), 30)
    api = Api(kubeconfig, args.tmp)

    def node_ready():
        _, node = api.request("GET", "/api/v1/nodes/node-1")
        conds = node.get("status", {}).get("conditions", [])
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)

    wait_for("node-1 Ready", node_ready, 60)
    wait_for("default service account",
             lambda: api.request("GET", "/api/v1/namespaces/default/serviceaccounts/default")[0]
             == 200, 30)
    print(f"server up, node Ready after {time.monotonic() - t_start:.2f} s", flush=True)
    watch = RunningWatch(api, PODS)

    # Warm-up: the first pod also waits for the airgap import; not counted.
    t0 = create(api, "warmup")
    warm = watch.wait(["warmup"], 120)["warmup"] - t0
    delete_all(api, ["warmup"])
    time.sleep(3)  # let the deletion settle before the idle figure
    idle = memory(server.pid)

    singles = []
    names = []
    for i in range(args.reps):
        name = f"single-{i}"
        t0 = create(api, name)
        singles.append(watch.wait([name], 60)[name] - t0)
        names.append(name)
    time.sleep(2)
    loaded = memory(server.pid)
    if not delete_all(api, names):
        print("warning: pods still there 120 s after delete", flush=True)

    many = [f"many-{i}" for i in range(args.many)]
    t_created = {}
    cpu_before = cpu_seconds(server.pid)
    perf = None
    if args.perf:  # the server's profile during the burst only
        perf = subprocess.Popen(["perf", "record", "-q", "-F", "499", "-g", "-o", args.perf,
                                 "-p", str(server.pid)], stdout=subprocess.DEVNULL)
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        t_first = time.monotonic()
        for name, t0 in zip(many, pool.map(lambda n: create(api, n), many)):
            t_created[name] = t0
    t_all_created = time.monotonic()
    seen = watch.wait(many, 300)
    per_pod = [seen[n] - t_created[n] for n in many]
    to_bound = [watch.scheduled[n] - t_created[n] for n in many if n in watch.scheduled]
    bound_to_running = [seen[n] - watch.scheduled[n] for n in many if n in watch.scheduled]
    all_running = max(seen.values()) - t_first
    cpu_after = cpu_seconds(server.pid)
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    cpu_server = cpu_after[0] - cpu_before[0]
    cpu_others = cpu_after[1] - cpu_before[1]
    delete_all(api, many, timeout=60)

    podman, podman_why = (None, args.podman_skip) if args.podman_skip else \
        podman_bench(args.tmp, args.cgroup, args.reps)

    ms = lambda s: s * 1000.0  # noqa: E731
    p50, p99 = pct(singles, 50), pct(singles, 99)
    print()
    print(f"warm-up pod (includes the airgap import): {ms(warm):.0f} ms")
    print(f"1 pod, {args.reps} times sequentially (create -> Running in a watch):")
    print(f"  p50 {ms(p50):.0f} ms  p99 {ms(p99):.0f} ms  min {ms(min(singles)):.0f}  "
          f"max {ms(max(singles)):.0f}")
    print("  each: " + " ".join(f"{ms(s):.0f}" for s in singles))
    print(f"{args.many} pods created at once (10 client threads; creating them took "
          f"{ms(t_all_created - t_first):.0f} ms):")
    print(f"  all Running after {all_running:.2f} s; per pod p50 {ms(pct(per_pod, 50)):.0f} ms  "
          f"p99 {ms(pct(per_pod, 99)):.0f} ms")
    print(f"  of which create -> bound (nodeName seen): p50 {ms(pct(to_bound, 50)):.0f} ms  "
          f"p99 {ms(pct(to_bound, 99)):.0f} ms; bound -> Running: p50 "
          f"{ms(pct(bound_to_running, 50)):.0f} ms  p99 {ms(pct(bound_to_running, 99)):.0f} ms")
    print(f"  CPU used meanwhile: k3c server {cpu_server:.2f} s "
          f"({ms(cpu_server) / args.many:.0f} ms per pod), shims/containers/reaped children "
          f"{cpu_others:.2f} s ({ms(cpu_others) / args.many:.0f} ms per pod); the machine has "
          f"{os.cpu_count()} cores")
    if podman:
        pm = statistics.median(podman)
        print(f"podman run -d --runtime runc, {len(podman)} times (after one warm-up):")
        print(f"  p50 {ms(pm):.0f} ms  p99 {ms(pct(podman, 99)):.0f} ms")
        print(f"  ratio k3c/podman (p50): {p50 / pm:.2f}")
    else:
        print(f"podman skipped: {podman_why}")
    growth = (loaded["rss"] - idle["rss"]) / max(1, len(names))
    print("memory (k3c server process; containers' own processes excluded):")
    print(f"  idle with agent: RSS {idle['rss'] / 1024:.1f} MB  PSS {idle['pss'] / 1024:.1f} MB")
    print(f"  with {len(names)} running pods: RSS {loaded['rss'] / 1024:.1f} MB  "
          f"PSS {loaded['pss'] / 1024:.1f} MB; growth {growth:.0f} kB per pod")
    if loaded["shims"]:
        print(f"  shims: {loaded['shims']}; RSS median {statistics.median(loaded['shim_rss'])} kB, "
              f"PSS median {statistics.median(loaded['shim_pss'])} kB, "
              f"sum of PSS {sum(loaded['shim_pss']) / 1024:.1f} MB")
    total = loaded["rss"] + sum(loaded["shim_pss"])
    print(f"  server RSS + shims' PSS with {len(names)} pods: {total / 1024:.1f} MB")
    print()
    rows = [("1 pod p50", f"{ms(p50):.0f} ms", "<= 150 ms", p50 <= 0.150),
            ("1 pod p99", f"{ms(p99):.0f} ms", "<= 400 ms", p99 <= 0.400),
            (f"{args.many} pods all Running", f"{all_running:.2f} s", "<= 3 s", all_running <= 3),
            (f"server RSS, {len(names)} pods", f"{loaded['rss'] / 1024:.1f} MB", "<= 60 MB",
             loaded["rss"] <= 60 * 1024),
            (f"+ shims' PSS, {len(names)} pods", f"{total / 1024:.1f} MB", "<= 60 MB",
             total <= 60 * 1024)]
    if podman:
        rows.append(("k3c/podman per container", f"{p50 / statistics.median(podman):.2f}",
                     "< 1", p50 < statistics.median(podman)))
    print(f"{'figure':28} {'value':>10}  {'target':10} result")
    for name, value, target, met in rows:
        print(f"{name:28} {value:>10}  {target:10} {'met' if met else 'NOT MET'}")
    return 0


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k3c", default=os.path.join(repo, "build/k3c"), help="the k3c binary")
    p.add_argument("--reps", type=int, default=20, help="single-pod and podman repetitions")
    p.add_argument("--many", type=int, default=100, help="pods created at once")
    p.add_argument("--no-podman", action="store_true", help="skip the podman reference")
    p.add_argument("--perf", default="", metavar="FILE",
                   help="perf record -g of the server during the 100-pod burst into FILE")
    p.add_argument("--fs", choices=["journaled-ext4", "host"], default="journaled-ext4",
                   help="where the server's data dir and pod logs live: a journaled ext4 made "
                        "for the run (default), or the host's temp dir as it is")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--tmp", help=argparse.SUPPRESS)
    p.add_argument("--cgroup", help=argparse.SUPPRESS)
    p.add_argument("--podman-skip", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    sys.exit(inner(args) if args.inner else outer(args))


if __name__ == "__main__":
    main()
