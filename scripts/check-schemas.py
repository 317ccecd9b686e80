#!/usr/bin/env python3
"""Checks the fact files (src/api/schemas/*.yaml) against upstream's protobuf definitions.

Usage: scripts/check-schemas.py API APIMACHINERY APIEXTENSIONS [REF]

API, APIMACHINERY and APIEXTENSIONS are git checkouts of k8s.io/api, k8s.io/apimachinery and
k8s.io/apiextensions-apiserver; REF is the tag to read (default v0.32.9, Kubernetes v1.32).
For every type of the fact files, every field number of upstream's message of that name must
be there under the same JSON name (an `inline: true` member stands for an embedded struct).
A kind may be marked `complete` (rules/*.yaml; fieldValidation reports unknown fields for it)
only while this passes for every type it reaches. Prints each difference; exits 1 if any.
"""

import glob
import os
import re
import subprocess
import sys

import yaml

PROTOS = {
    0: None,  # k8s.io/api: every generated.proto in the tree
    1: "pkg/apis/meta/v1/generated.proto",
    2: "pkg/apis/apiextensions/v1/generated.proto",
}


def proto_texts(repo, ref, path):
    if path is None:
        names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", ref],
                               check=True, capture_output=True, text=True).stdout.split()
        paths = [n for n in names if n.endswith("generated.proto")]
    else:
        paths = [path]
    for p in paths:
        yield subprocess.run(["git", "-C", repo, "show", f"{ref}:{p}"], check=True,
                             capture_output=True, text=True).stdout


def upstream_messages(repos, ref):
    """(package, message) -> {field number: proto field name}, package as `rbac.v1`."""
    messages = {}
    for i, repo in enumerate(repos):
        for text in proto_texts(repo, ref, PROTOS[i]):
            pkg = re.search(r"^package\s+([\w.]+);", text, re.M).group(1).split(".")
            short = ".".join(pkg[-2:])
            for m in re.finditer(r"^message\s+(\w+)\s*\{(.*?)^\}", text, re.M | re.S):
                fields = {}
                for line in m.group(2).splitlines():
                    line = line.strip()
                    f = re.match(r"(?:optional|repeated)?\s*(?:map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*(\d+)",
                                 line)
                    if f and not line.startswith("//"):
                        fields[int(f.group(2))] = f.group(1)
                messages[(short, m.group(1))] = fields
    return messages


def comparable(name):
    return name.lower().replace("-", "").replace("$", "").replace("_", "")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ref = sys.argv[4] if len(sys.argv) > 4 else "v0.32.9"
    upstream = upstream_messages(sys.argv[1:4], ref)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "api", "schemas")
    problems = 0
    for path in sorted(glob.glob(os.path.join(here, "*.yaml"))):
        doc = yaml.safe_load(open(path))
        for name, t in (doc.get("types") or {}).items():
            key = (doc["package"], name)
            if key not in upstream:
                print(f"no upstream message for {key[0]}.{name}")
                problems += 1
                continue
            ours = {f["number"]: f for f in (t.get("fields") or []) if "number" in f}
            for number, proto_name in sorted(upstream[key].items()):
                f = ours.get(number)
                if f is None:
                    print(f"missing: {key[0]}.{name} field {number} ({proto_name})")
                    problems += 1
                elif not f.get("inline") and comparable(f["name"]) != comparable(proto_name):
                    print(f"name: {key[0]}.{name} field {number}: {f['name']}, upstream {proto_name}")
                    problems += 1
    print(f"{problems} difference(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
