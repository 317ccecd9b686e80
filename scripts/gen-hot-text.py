#!/usr/bin/env python3
"""Writes cmake/k3c-hot-text.ld: the linker script that puts the code an idle k3c server runs
next to each other, in one output section before .text.

Why: the kernel maps a file-backed page and the pages around it (fault-around, 64 kB) on
every fault, and VmRSS counts all of them. Spread over the binary's 16 MB of text, the ~3 MB
that start-up and an idle server run made ~10.7 MB resident; packed together, ~4 MB
(doc/design-notes.md "Hot text").

How: the functions come from callgrind profiles of a server run (record one with
--record); their input sections come from `objdump -t` of every object and archive on the
k3c link line (`ninja -t commands k3c`). Code built with -ffunction-sections has one section
per function; the Debian archives built without it (OpenSSL, SQLite, yaml-cpp) are placed a
whole member's .text at a time.

  scripts/gen-hot-text.py --build build --record   # runs the server under callgrind
  scripts/gen-hot-text.py --build build --profile FILE [--profile FILE ...]

The script is a developer's tool, run when the code has changed enough that the idle RSS
(bench/k3c_apiserver_bench, phase 1) drifts up; the build only reads its output. A pattern
that names a function that no longer exists matches nothing and costs nothing.
"""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "cmake", "k3c-hot-text.ld")


def link_inputs(build):
    """The objects and archives of k3c's link command, as paths."""
    commands = subprocess.run(["ninja", "-C", build, "-t", "commands", "k3c"], check=True,
                              capture_output=True, text=True).stdout.strip().split("\n")
    link = commands[-1]
    inputs = []
    for word in shlex.split(link.split("&&")[1]):
        if word.endswith((".a", ".o")):
            path = word if os.path.isabs(word) else os.path.join(build, word)
            if os.path.exists(path) and path not in inputs:
                inputs.append(path)
    # Static libstdc++/libgcc come from the compiler's own directory.
    for lib in ("libstdc++.a", "libgcc.a", "libgcc_eh.a"):
        path = subprocess.run(["c++", "-print-file-name=" + lib], capture_output=True,
                              text=True).stdout.strip()
        if os.path.isabs(path) and os.path.exists(path):
            inputs.append(path)
    return inputs


MEMBER = re.compile(r"^(\S+):\s+file format ")
SYMBOL = re.compile(r"^[0-9a-f]+ (.{7}) (\S+)\t[0-9a-f]+ (?:\.hidden )?(\S+)$")


def sections_of(inputs):
    """symbol -> [(archive basename or None, member, section)] for every defined function."""
    where = {}
    for path in inputs:
        out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True).stdout
        member = os.path.basename(path)
        archive = os.path.basename(path) if path.endswith(".a") else None
        for line in out.split("\n"):
            header = MEMBER.match(line)
            if header:
                member = header.group(1)
                continue
            m = SYMBOL.match(line)
            if not m or "F" not in m.group(1) or not m.group(2).startswith(".text"):
                continue
            where.setdefault(m.group(3), []).append((archive, member, m.group(2)))
    return where


FUNCTION = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")


def profiled_functions(profiles):
    """Function names in the order callgrind first saw them (mangled: --demangle=no)."""
    names, seen = [], set()
    for profile in profiles:
        with open(profile, errors="replace") as f:
            for line in f:
                m = FUNCTION.match(line.rstrip("\n"))
                if not m or not m.group(2):
                    continue
                name = re.sub(r"'\d+$", "", m.group(2))  # callgrind's recursion depth
                if name not in seen:
                    seen.add(name)
                    names.append(name)
    return names


def record(build, workdir):
    """Profiles `k3c server --disable-agent`: start, idle, and the requests kubectl makes."""
    profile = os.path.join(workdir, "callgrind.out")
    kubeconfig = os.path.join(workdir, "kubeconfig")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + profile,
         os.path.join(build, "k3c"), "server", "--disable-agent", "--data-dir",
         os.path.join(workdir, "data"), "--bind-address", "127.0.0.1",
         "--https-listen-port", "16449", "--write-kubeconfig", kubeconfig],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        env = dict(os.environ, KUBECONFIG=kubeconfig)
        deadline = time.time() + 120
        while subprocess.run(["kubectl", "get", "ns"], env=env, capture_output=True).returncode:
            if time.time() > deadline:
                sys.exit("the server did not answer under callgrind within 120 s")
            time.sleep(2)
        for args in (["create", "configmap", "hot", "--from-literal=a=b"], ["get", "cm", "-A"],
                     ["get", "cm", "hot", "-o", "yaml"], ["delete", "cm", "hot"],
                     ["api-resources"], ["get", "pods", "-A"]):
            subprocess.run(["kubectl"] + args, env=env, capture_output=True, timeout=60)
        time.sleep(35)  # idle long enough for the threads started on demand to end
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=120)
    return profile


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--profile", action="append", default=[])
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        profiles = list(args.profile)
        if args.record:
            profiles.append(record(args.build, workdir))
        if not profiles:
            sys.exit("give --profile FILE or --record")
        hot = profiled_functions(profiles)
    where = sections_of(link_inputs(args.build))
    patterns, seen = [], set()
    for name in hot:
        for archive, member, section in where.get(name, []):
            if section == ".text" and archive:
                pattern = "*%s:%s(.text)" % (archive, member)
            elif section == ".text":
                pattern = "*%s(.text)" % member
            else:
                pattern = "*(%s)" % section
            if pattern not in seen:
                seen.add(pattern)
                patterns.append(pattern)
    with open(OUT, "w") as f:
        f.write("/* Generated by scripts/gen-hot-text.py from a callgrind profile: the code an\n"
                "   idle k3c server runs, packed before .text (see the script). */\n")
        f.write("SECTIONS\n{\n  .text.k3c_hot :\n  {\n")
        for pattern in patterns:
            f.write("    %s\n" % pattern)
        f.write("  }\n}\nINSERT BEFORE .text;\n")
    print("%s: %d sections from %d profiled functions" % (OUT, len(patterns), len(hot)))


if __name__ == "__main__":
    main()
