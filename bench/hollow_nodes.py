#!/usr/bin/env python3
"""End-to-end scale benchmark with hollow nodes (issue 4): `k3c server --disable-agent` on a
free loopback port, `k3c bench hollow-nodes --count N` against it (over HTTPS, measured as a
process of its own), then a Deployment of R replicas from apply to all pods bound and to all
Running and Ready as the hollow nodes report them.

Not a test: it prints medians and ratios, never fails on timing. See doc/benchmarks.md.

Each measurement starts a fresh server (and tool) in a scratch directory of its own, so that
nothing an earlier one left behind weighs on it. Figures, per repetition (medians printed):
  - reference (same run, a fresh server of its own): the same Deployment with a nodeSelector no
    node has, so the ReplicaSet controller and the apiserver create the R pods and nothing
    binds them: pods created per second.
  - end to end: apply -> all R pods created, all bound (spec.nodeName set), all Ready
    (deployment readyReplicas == R); pods bound per second; ratio to the reference's
    creation rate and to the issue's target (1,000 pods/s).
  - memory once all pods run: VmRSS (and VmHWM) of the k3c server and, apart, of the tool;
    the server's VmRSS again --settle seconds later (at rest: nodes heartbeating, nothing else
    changing) with its CPU meanwhile;
    and the reference server's VmRSS once its R pods exist (nothing bound, no nodes).
With --baseline OTHER_K3C every repetition measures both binaries, alternating which goes
first, and the summary gives each one's medians and the ratio of the two.
Counts come from cheap lists (limit=1 and remainingItemCount) polled every 100 ms.
"""
import argparse
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

import yaml  # python3-yaml

TARGET_PODS_PER_S = 1000.0
TARGET_RSS_MB = 150.0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Api:
    """A kept-alive HTTPS client with the kubeconfig's credentials."""

    def __init__(self, kubeconfig, scratch):
        cfg = yaml.safe_load(open(kubeconfig))
        cluster = cfg["clusters"][0]["cluster"]
        user = cfg["users"][0]["user"]
        paths = {}
        for name, data in (("ca", cluster["certificate-authority-data"]),
                           ("cert", user["client-certificate-data"]),
                           ("key", user["client-key-data"])):
            paths[name] = os.path.join(scratch, name + ".pem")
            with open(paths[name], "wb") as f:
                f.write(base64.b64decode(data))
        self.ctx = ssl.create_default_context(cafile=paths["ca"])
        self.ctx.load_cert_chain(paths["cert"], paths["key"])
        host_port = cluster["server"].split("://")[1]
        self.host, self.port = host_port.rsplit(":", 1)
        self.conn = None

    def call(self, method, path, body=None, content_type="application/json"):
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPSConnection(self.host, int(self.port),
                                                            context=self.ctx, timeout=120)
                headers = {"Accept": "application/json"}
                data = None
                if body is not None:
                    data = json.dumps(body).encode()
                    headers["Content-Type"] = content_type
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                text = resp.read()
                try:
                    return resp.status, (json.loads(text) if text else {})
                except ValueError:  # /readyz and friends answer text
                    return resp.status, {"text": text.decode(errors="replace")}
            except (OSError, http.client.HTTPException):
                self.conn = None
                if attempt == 2:
                    raise
                time.sleep(0.2)

    def count(self, path):
        """Objects in a list without selectors (remainingItemCount is not given with them)."""
        status, body = self.call("GET", path + "?limit=1")
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body}")
        return len(body.get("items", [])) + body.get("metadata", {}).get("remainingItemCount", 0)

    def none_left(self, path):
        """Whether a selected list is empty: no item on the first page and no further page."""
        status, body = self.call("GET", path + "&limit=1")
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body}")
        return not body.get("items") and not body.get("metadata", {}).get("continue")


def vm(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def cpu_s(pid):
    """User + system CPU seconds the process has used (all its threads)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def wait_for(what, done, limit, period=0.1):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if done():
            return time.monotonic()
        time.sleep(period)
    raise RuntimeError(f"timed out after {limit} s waiting for {what}")


def deployment(name, replicas, node_selector=None):
    spec = {"containers": [{"name": "app", "image": "registry.example/bench:1",
                            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
            "terminationGracePeriodSeconds": 0}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


# Each run has a namespace of its own, so that its pods are counted without selectors.
def ns(name):
    return f"/api/v1/namespaces/{name}"


def deployments(name):
    return f"/apis/apps/v1/namespaces/{name}/deployments"


def create_namespace(api, name, limit):
    api.call("POST", "/api/v1/namespaces",
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    wait_for(f"default service account in {name}",
             lambda: api.call("GET", f"{ns(name)}/serviceaccounts/default")[0] == 200, limit)


def reference_run(api, replicas, name, limit, server_pid):
    """Pods created per second when nothing binds them, and the server's VmRSS then."""
    create_namespace(api, name, limit)
    t0 = time.monotonic()
    cpu0 = cpu_s(server_pid)
    status, body = api.call("POST", deployments(name),
                            deployment(name, replicas, {"bench/none": "x"}))
    if status != 201:
        raise RuntimeError(f"create {name}: {status} {body}")
    t = wait_for("reference pods created", lambda: api.count(f"{ns(name)}/pods") >= replicas,
                 limit)
    cpu_ms = (cpu_s(server_pid) - cpu0) * 1000.0 / replicas
    time.sleep(2)  # the informers and events catch up
    return replicas / (t - t0), vm(server_pid, "VmRSS"), cpu_ms


def e2e_run(api, replicas, name, limit, server_pid, tool_pid, settle):
    create_namespace(api, name, limit)
    pods = f"{ns(name)}/pods"
    unbound = f"{ns(name)}/pods?fieldSelector=spec.nodeName%3D"
    marks = {}
    t0 = time.monotonic()
    cpu0 = {"server": cpu_s(server_pid), "tool": cpu_s(tool_pid)}
    status, body = api.call("POST", deployments(name), deployment(name, replicas))
    if status != 201:
        raise RuntimeError(f"create {name}: {status} {body}")

    def progress():
        now = time.monotonic()
        if "created" not in marks and api.count(pods) >= replicas:
            marks["created"] = now
        if "created" in marks and "bound" not in marks and api.none_left(unbound):
            marks["bound"] = now
        if "bound" in marks:
            _, d = api.call("GET", f"{deployments(name)}/{name}")
            if d.get("status", {}).get("readyReplicas", 0) >= replicas:
                marks["ready"] = now
                return True
        return False

    wait_for("all pods bound and ready", progress, limit)
    # CPU per pod from apply to all Ready: steadier than the rates on a shared machine.
    cpu = {f"{who}_cpu_ms": (cpu_s(pid) - cpu0[who]) * 1000.0 / replicas
           for who, pid in (("server", server_pid), ("tool", tool_pid))}
    mem = {"server_rss": vm(server_pid, "VmRSS"), "server_hwm": vm(server_pid, "VmHWM"),
           "tool_rss": vm(tool_pid, "VmRSS"), "tool_hwm": vm(tool_pid, "VmHWM")}
    # The same a while later, with the nodes heartbeating and nothing else changing: what a
    # cluster at rest holds (the server gives back heap memory that stays free), and the CPU
    # it spends meanwhile.
    cpu_before = cpu_s(server_pid)
    time.sleep(settle)
    mem["server_rss_settled"] = vm(server_pid, "VmRSS")
    mem["settled_cpu_pct"] = (cpu_s(server_pid) - cpu_before) * 100.0 / settle
    result = {"created_s": marks["created"] - t0, "bound_s": marks["bound"] - t0,
              "ready_s": marks["ready"] - t0, "bound_per_s": replicas / (marks["bound"] - t0),
              "ready_per_s": replicas / (marks["ready"] - t0), **mem, **cpu}
    return result


class Cluster:
    """A fresh `k3c server --disable-agent` (and, with nodes > 0, the hollow-nodes tool) in a
    scratch directory of its own: every measurement starts from an empty cluster, so nothing
    a previous one left (pods being deleted, watch history) weighs on it."""

    def __init__(self, args, nodes, k3c):
        self.args = args
        self.k3c = k3c
        self.scratch = tempfile.mkdtemp(prefix="k3c-hollow-bench-")
        port = free_port()
        config = os.path.join(self.scratch, "config.yaml")
        with open(config, "w") as f:
            f.write(f"bind-address: 127.0.0.1\nhttps-listen-port: {port}\n")
        self.kubeconfig = os.path.join(self.scratch, "kubeconfig.yaml")
        self.env = {"HOME": self.scratch, "PATH": "/usr/bin:/bin"}
        log = open(os.path.join(self.scratch, "server.log"), "w")
        self.server = subprocess.Popen([k3c, "server", "-c", config, "-d",
                                        os.path.join(self.scratch, "data"), "--write-kubeconfig",
                                        self.kubeconfig, "--disable-agent",
                                        # 4,096 node /24s: the default 10.42.0.0/16 has 256
                                        "--cluster-cidr=10.96.0.0/12"], env=self.env,
                                       stdout=log, stderr=subprocess.STDOUT)
        self.tool = None
        self.nodes = nodes

    def __enter__(self):
        wait_for("kubeconfig", lambda: os.path.exists(self.kubeconfig), 60)
        self.api = Api(self.kubeconfig, self.scratch)
        wait_for("readyz", lambda: self.api.call("GET", "/readyz")[0] == 200, 60, period=0.2)
        self.rss_idle = vm(self.server.pid, "VmRSS")
        if self.nodes == 0:
            return self
        t0 = time.monotonic()
        log = open(os.path.join(self.scratch, "hollow.log"), "w")
        self.tool = subprocess.Popen([self.k3c, "bench", "hollow-nodes", "--kubeconfig",
                                      self.kubeconfig, "--count", str(self.nodes),
                                      "--status-workers", str(self.args.status_workers)],
                                     env=self.env, stdout=log, stderr=subprocess.STDOUT)

        def nodes_ready():
            _, body = self.api.call("GET", "/api/v1/nodes")
            ready = 0
            for n in body.get("items", []):
                conds = {c["type"]: c["status"] for c in n.get("status", {}).get("conditions", [])}
                if conds.get("Ready") == "True" and n.get("spec", {}).get("podCIDR"):
                    ready += 1
            return ready >= self.nodes

        self.nodes_s = wait_for(f"{self.nodes} nodes Ready with pod CIDRs", nodes_ready,
                                self.args.limit, period=0.5) - t0
        self.rss_nodes = vm(self.server.pid, "VmRSS")
        return self

    def __exit__(self, *exc):
        for proc in (self.tool, self.server):
            if proc is None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.args.keep:
            print(f"  scratch kept in {self.scratch}")
        else:
            shutil.rmtree(self.scratch, ignore_errors=True)
        return False


def measure(args, k3c):
    """One repetition with one binary: the reference, then the end-to-end run."""
    with Cluster(args, 0, k3c) as c:
        ref, ref_rss, ref_cpu = reference_run(c.api, args.replicas, "ref", args.limit,
                                              c.server.pid)
    with Cluster(args, args.nodes, k3c) as c:
        run = e2e_run(c.api, args.replicas, "web", args.limit, c.server.pid, c.tool.pid,
                      args.settle)
        run["nodes_s"] = c.nodes_s
        run["rss_nodes"] = c.rss_nodes
    run["ref"] = ref
    run["ref_rss"] = ref_rss
    run["ref_cpu_ms"] = ref_cpu
    run["load"] = os.getloadavg()[0]
    return run


def summarize(args, label, runs):
    def med(key):
        return statistics.median(r[key] for r in runs)

    ref = med("ref")
    bound = med("bound_per_s")
    print(f"summary (medians) for {label}:")
    print(f"  reference: pods created/s, nothing binding        {ref:8.0f}   "
          f"server RSS then {med('ref_rss'):.0f} MB")
    print(f"  {args.nodes} nodes registered and Ready in   {med('nodes_s'):8.1f} s")
    print(f"  apply -> all created                 {med('created_s'):8.1f} s")
    print(f"  apply -> all bound                   {med('bound_s'):8.1f} s   "
          f"{bound:6.0f} pods bound/s  ratio to reference {bound / ref:.2f}, "
          f"to target {TARGET_PODS_PER_S:.0f}/s {bound / TARGET_PODS_PER_S:.2f} "
          f"({'met' if bound >= TARGET_PODS_PER_S else 'NOT MET'})")
    print(f"  apply -> all Running and Ready       {med('ready_s'):8.1f} s   "
          f"{med('ready_per_s'):6.0f} pods/s")
    print(f"  server CPU per pod, apply -> all Ready {med('server_cpu_ms'):8.2f} ms   "
          f"(reference, creation only: {med('ref_cpu_ms'):.2f} ms); hollow-nodes tool "
          f"{med('tool_cpu_ms'):.2f} ms")
    srv = med("server_rss")
    print(f"  server VmRSS with {args.nodes} nodes only: {med('rss_nodes'):.0f} MB")
    print(f"  server VmRSS with {args.nodes} nodes, {args.replicas} pods: {srv:.0f} MB "
          f"(peak {med('server_hwm'):.0f} MB); target {TARGET_RSS_MB:.0f} MB: ratio "
          f"{srv / TARGET_RSS_MB:.2f} ({'met' if srv <= TARGET_RSS_MB else 'NOT MET'})"
          + ("" if args.nodes >= 1000 and args.replicas >= 10000 else
             " [target is for 1,000 nodes and 10,000 pods]"))
    settled = med("server_rss_settled")
    print(f"  server VmRSS {args.settle:.0f} s later, at rest: {settled:.0f} MB (server CPU meanwhile "
          f"{med('settled_cpu_pct'):.0f}%); target {TARGET_RSS_MB:.0f} MB: ratio "
          f"{settled / TARGET_RSS_MB:.2f} ({'met' if settled <= TARGET_RSS_MB else 'NOT MET'})")
    print(f"  hollow-nodes tool VmRSS: {med('tool_rss'):.0f} MB (peak {med('tool_hwm'):.0f})")
    return {k: med(k) for k in ("ref", "bound_per_s", "ready_per_s", "bound_s", "server_rss",
                                "server_hwm", "rss_nodes", "ref_rss", "server_cpu_ms",
                                "ref_cpu_ms", "tool_cpu_ms", "server_rss_settled",
                                "settled_cpu_pct")}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--k3c", default=os.path.join(here, "..", "build", "k3c"))
    p.add_argument("--baseline", help="another k3c binary measured alternately with --k3c")
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--replicas", type=int, default=3000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--status-workers", type=int, default=8)
    p.add_argument("--limit", type=float, default=600, help="seconds any one wait may take")
    p.add_argument("--settle", type=float, default=15,
                   help="seconds after all pods are Ready before the at-rest VmRSS is read")
    p.add_argument("--keep", action="store_true", help="keep the scratch directories")
    args = p.parse_args()

    binaries = [("k3c", args.k3c)] + ([("baseline", args.baseline)] if args.baseline else [])
    print(f"k3c hollow-nodes benchmark: {args.nodes} nodes, {args.replicas} replicas, "
          f"{args.reps} repetitions, status workers {args.status_workers}; "
          + ", ".join(f"{label} = {path}" for label, path in binaries), flush=True)
    runs = {label: [] for label, _ in binaries}
    for rep in range(args.reps):
        order = binaries if rep % 2 == 0 else binaries[::-1]
        for label, path in order:
            run = measure(args, path)
            runs[label].append(run)
            print(f"  rep {rep + 1} {label}: reference {run['ref']:.0f} pods created/s (RSS "
                  f"{run['ref_rss']:.0f} MB) | {args.nodes} nodes Ready in {run['nodes_s']:.1f} s "
                  f"(server RSS {run['rss_nodes']:.0f} MB) | e2e created {run['created_s']:.1f} s, "
                  f"bound {run['bound_s']:.1f} s ({run['bound_per_s']:.0f}/s), ready "
                  f"{run['ready_s']:.1f} s ({run['ready_per_s']:.0f}/s) | server RSS "
                  f"{run['server_rss']:.0f} MB (peak {run['server_hwm']:.0f}; at rest "
                  f"{run['server_rss_settled']:.0f}), tool RSS "
                  f"{run['tool_rss']:.0f} MB | server CPU {run['server_cpu_ms']:.2f} ms/pod "
                  f"(reference {run['ref_cpu_ms']:.2f}) | load {run['load']:.1f}", flush=True)
    meds = {label: summarize(args, label, runs[label]) for label, _ in binaries}
    if args.baseline:
        a, b = meds["k3c"], meds["baseline"]
        print("k3c / baseline (ratio of medians):")
        for key, what in (("bound_per_s", "pods bound/s"), ("ready_per_s", "pods Ready/s"),
                          ("ref", "reference pods created/s"),
                          ("server_cpu_ms", "server CPU ms per pod (apply->Ready)"),
                          ("ref_cpu_ms", "reference server CPU ms per pod"),
                          ("server_rss", "server VmRSS with nodes and pods"),
                          ("server_rss_settled", "server VmRSS at rest"),
                          ("rss_nodes", "server VmRSS with nodes only"),
                          ("ref_rss", "reference server VmRSS")):
            print(f"  {what:36s} {a[key]:8.2f} / {b[key]:8.2f} = {a[key] / b[key]:.2f}")
    print(f"  load average (1 min) at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
