#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (test/fuzz/corpus/<target>/) from the real kubectl
bodies in src/api/testdata/kubectl_protobuf.txt plus a few hand-written inputs per format.
Run from the repository root; it only adds or rewrites files named seed-*, so regression
inputs (named crash-*, kept by hand) stay."""
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "test", "fuzz", "corpus")


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:12]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def kubectl_bodies():
    lines = open(os.path.join(ROOT, "src/api/testdata/kubectl_protobuf.txt")).read().splitlines()
    lines = [l for l in lines if not l.startswith("#")]
    for i in range(0, len(lines) - 2, 3):
        yield bytes.fromhex(lines[i + 1]), (None if lines[i + 2] == "-" else lines[i + 2])


POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "main", "image": "nginx", "ports": [{"containerPort": 80}],
                             "env": [{"name": "A", "value": "1"}]}],
             "tolerations": [{"key": "k", "operator": "Exists"}]},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}}, "spec": POD["spec"]}},
}


def main():
    objects = [POD, DEPLOYMENT]
    for body, js in kubectl_bodies():
        write("protobuf", body)
        if js:
            objects.append(json.loads(js))
    for o in objects:
        write("body", json.dumps(o))
    write("body", '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"x":1}}')
    write("body", '{"apiVersion":"v1","kind":"Service","spec":{"type":3,"ports":[{"port":"80"}]}}')

    for o in objects[:6]:
        write("yaml", "\n".join(f"{k}: {json.dumps(v)}" for k, v in o.items()) + "\n")
    write("yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 'yes'\n"
                  "  b: !!str 1\n  c: &anchor ~\n  d: *anchor\n---\nkind: List\nitems: [1, 2.5, true, null]\n")
    write("yaml", "a: {b: [c, {d: e}]}\n? complex\n: value\nlong: |\n  text\n  more\n")

    patches = [
        (POD, [{"op": "replace", "path": "/spec/containers/0/image", "value": "busybox"},
               {"op": "add", "path": "/metadata/labels/x", "value": "y"},
               {"op": "test", "path": "/metadata/name", "value": "web"},
               {"op": "move", "from": "/metadata/labels/app", "path": "/metadata/labels/b"},
               {"op": "copy", "from": "/spec", "path": "/metadata/annotations"},
               {"op": "remove", "path": "/spec/tolerations/0"}]),
        (POD, {"metadata": {"labels": {"app": None, "new": "1"}},
               "spec": {"containers": [{"name": "main", "image": "busybox"},
                                       {"name": "side", "$patch": "delete"}],
                        "$setElementOrder/containers": [{"name": "main"}]}}),
        (DEPLOYMENT, {"spec": {"template": {"spec": {
            "containers": [{"name": "main", "env": [{"name": "B", "value": "2"}],
                            "$setElementOrder/env": [{"name": "A"}, {"name": "B"}]}],
            "$retainKeys": ["containers"]}}, "replicas": 3}}),
        (DEPLOYMENT, {"spec": {"$patch": "replace", "replicas": 1}}),
        (POD, {"spec": {"$deleteFromPrimitiveList/finalizers": ["a"], "containers": {"$patch": "replace"}}}),
    ]
    for obj, patch in patches:
        write("patch", json.dumps(obj) + "\n---patch---\n" + json.dumps(patch))
    write("patch", json.dumps({"spec": {"replicas": 5}}))

    for s in ["app=web", "app!=web,tier", "!tier", "env in (prod, qa),tier notin (x)",
              "example.com/x=1", "app==web,a.b/c-d_e", "metadata.name=p,metadata.namespace!=kube-system",
              "spec.nodeName=", "x>1", "key in ()"]:
        write("selector", s)


if __name__ == "__main__":
    main()
