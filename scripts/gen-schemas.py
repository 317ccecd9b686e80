#!/usr/bin/env python3
"""Generates src/api/schemas/*.yaml (format: doc/schemas.md) from upstream Kubernetes sources.

Usage: scripts/gen-schemas.py UPSTREAM [OUTDIR]

UPSTREAM is either a kubernetes/kubernetes checkout (its staging/src/k8s.io is used) or a
folder holding checkouts named api/, apimachinery/ and apiextensions-apiserver/ (k8s.io/api,
k8s.io/apimachinery and k8s.io/apiextensions-apiserver at the same release, v0.32.x for
Kubernetes v1.32). OUTDIR defaults to src/api/schemas next to this script.

Facts are read, not copied: from each package's generated.proto the protobuf field numbers
and types, from its Go sources (types.go and friends) the JSON names, inline embedding,
pointers and omitempty (-> keepZero), the +listType/+listMapKey markers and the
patchMergeKey/patchStrategy struct tags. Descriptions are left out (ours, to be written).
Only the types reachable from the kinds in KINDS (plus EXTRA_ROOTS) are written. The build
never runs this script; its output is committed.
"""

import os
import re
import sys
from collections import defaultdict

# apiVersion -> kinds k3c serves (src/api/resources.yaml, top-level and subresource kinds).
# schema_test.cpp checks that every kind of the registry has a schema, so a kind added there
# without being added here fails the unit tests.
KINDS = {
    "v1": [
        "Binding", "ComponentStatus", "ConfigMap", "Endpoints", "Event", "LimitRange",
        "Namespace", "Node", "PersistentVolume", "PersistentVolumeClaim", "Pod",
        "PodTemplate", "ReplicationController", "ResourceQuota", "Secret", "Service",
        "ServiceAccount",
        # Subresource option kinds (query parameters; kept for completeness).
        "NodeProxyOptions", "PodAttachOptions", "PodExecOptions", "PodPortForwardOptions",
        "PodProxyOptions", "ServiceProxyOptions",
    ],
    "admissionregistration.k8s.io/v1": [
        "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration",
    ],
    "apiextensions.k8s.io/v1": ["CustomResourceDefinition"],
    "apps/v1": ["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"],
    "authentication.k8s.io/v1": ["SelfSubjectReview", "TokenRequest", "TokenReview"],
    "authorization.k8s.io/v1": [
        "LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview",
        "SubjectAccessReview",
    ],
    "autoscaling/v1": ["HorizontalPodAutoscaler", "Scale"],
    "autoscaling/v2": ["HorizontalPodAutoscaler"],
    "batch/v1": ["CronJob", "Job"],
    "certificates.k8s.io/v1": ["CertificateSigningRequest"],
    "coordination.k8s.io/v1": ["Lease"],
    "discovery.k8s.io/v1": ["EndpointSlice"],
    "events.k8s.io/v1": ["Event"],
    "networking.k8s.io/v1": ["Ingress", "IngressClass", "NetworkPolicy"],
    "node.k8s.io/v1": ["RuntimeClass"],
    "policy/v1": ["Eviction", "PodDisruptionBudget"],
    "rbac.authorization.k8s.io/v1": ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    "scheduling.k8s.io/v1": ["PriorityClass"],
    "storage.k8s.io/v1": [
        "CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment",
    ],
    # meta/v1 kinds every group accepts: the Status answer and the body of a DELETE.
    "meta.v1": ["DeleteOptions", "Status"],
}

# meta/v1 kinds are registered under these apiVersions (a DELETE body names its resource's
# group-version or meta.k8s.io/v1; Status is always v1).
META_KIND_VERSIONS = {"Status": ["v1"], "DeleteOptions": ["v1", "meta.k8s.io/v1"]}

# Types written even when no kind reaches them (package, name).
EXTRA_ROOTS = [("meta.v1", "TypeMeta"), ("meta.v1", "Condition")]

# Upstream protobuf messages that k3c's loader knows as special types (doc/schemas.md).
SPECIAL = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "Time",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": "Duration",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "RawExtension",
    # Both are {1 bytes raw} holding a JSON document, as RawExtension is.
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "RawExtension",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON": "RawExtension",
}

# Messages whose JSON form is one of their fields' values rather than an object (their Go
# types marshal themselves): the loader's `oneOf: true`.
ONE_OF = {
    ("apiextensions.v1", "JSONSchemaPropsOrArray"),
    ("apiextensions.v1", "JSONSchemaPropsOrBool"),
    ("apiextensions.v1", "JSONSchemaPropsOrStringArray"),
}

PROTO_SCALARS = {"string", "int32", "int64", "bool", "double", "bytes"}

# Our file per package; the header's first line says what is in it.
FILES = {
    "meta.v1": ("meta.yaml", "meta/v1 (k8s.io/apimachinery): object and list metadata, "
                "selectors, Status, DeleteOptions"),
    "core.v1": ("core.yaml", "core/v1 (apiVersion v1)"),
    "apps.v1": ("apps.yaml", "apps/v1"),
    "batch.v1": ("batch.yaml", "batch/v1"),
    "authentication.v1": ("authentication.yaml", "authentication.k8s.io/v1"),
    "authorization.v1": ("authorization.yaml", "authorization.k8s.io/v1"),
    "autoscaling.v1": ("autoscaling.yaml", "autoscaling/v1"),
    "autoscaling.v2": ("autoscaling-v2.yaml", "autoscaling/v2"),
    "admissionregistration.v1": ("admissionregistration.yaml",
                                 "admissionregistration.k8s.io/v1"),
    "apiextensions.v1": ("apiextensions.yaml",
                         "apiextensions.k8s.io/v1 (k8s.io/apiextensions-apiserver)"),
    "certificates.v1": ("certificates.yaml", "certificates.k8s.io/v1"),
    "coordination.v1": ("coordination.yaml", "coordination.k8s.io/v1"),
    "discovery.v1": ("discovery.yaml", "discovery.k8s.io/v1"),
    "events.v1": ("events.yaml", "events.k8s.io/v1"),
    "networking.v1": ("networking.yaml", "networking.k8s.io/v1"),
    "node.v1": ("node.yaml", "node.k8s.io/v1"),
    "policy.v1": ("policy.yaml", "policy/v1"),
    "rbac.v1": ("rbac.yaml", "rbac.authorization.k8s.io/v1"),
    "scheduling.v1": ("scheduling.yaml", "scheduling.k8s.io/v1"),
    "storage.v1": ("storage.yaml", "storage.k8s.io/v1"),
}


def fail(message):
    sys.exit("gen-schemas: " + message)


# --- where the packages live -------------------------------------------------------------

def source_roots(upstream):
    staging = os.path.join(upstream, "staging", "src", "k8s.io")
    base = staging if os.path.isdir(staging) else upstream
    roots = {name: os.path.join(base, name)
             for name in ("api", "apimachinery", "apiextensions-apiserver")}
    for name, path in roots.items():
        if not os.path.isdir(path):
            fail(f"{path} is missing (k8s.io/{name})")
    return roots


def our_package(proto_package):
    """k8s.io.api.core.v1 -> core.v1; None for packages without messages of their own."""
    parts = proto_package.split(".")
    if proto_package.startswith("k8s.io.api."):
        return parts[3] + "." + parts[4]
    if proto_package == "k8s.io.apimachinery.pkg.apis.meta.v1":
        return "meta.v1"
    if proto_package == "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1":
        return "apiextensions.v1"
    return None


def package_dir(roots, package):
    group, version = package.split(".")
    if package == "meta.v1":
        return os.path.join(roots["apimachinery"], "pkg", "apis", "meta", "v1")
    if package == "apiextensions.v1":
        return os.path.join(roots["apiextensions-apiserver"], "pkg", "apis", "apiextensions",
                            version)
    return os.path.join(roots["api"], group, version)


def kind_package(api_version):
    if api_version == "meta.v1":
        return "meta.v1"
    if "/" not in api_version:
        return "core." + api_version
    group, version = api_version.split("/")
    return group.split(".")[0] + "." + version


# --- generated.proto ---------------------------------------------------------------------

PROTO_FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;")
PROTO_MAP = re.compile(r"^\s*map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")


def read_proto(path):
    """{message: {number: (label, type, name)}} and the proto package."""
    package = None
    messages = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("package "):
                package = line.split()[1].rstrip(";")
            elif line.startswith("message "):
                current = messages.setdefault(line.split()[1], {})
            elif line.startswith("}"):
                current = None
            elif current is not None:
                m = PROTO_MAP.match(line)
                if m:
                    if m.group(1) != "string":
                        fail(f"{path}: map key {m.group(1)}")
                    current[int(m.group(4))] = ("map", m.group(2), m.group(3))
                    continue
                m = PROTO_FIELD.match(line)
                if m:
                    current[int(m.group(4))] = (m.group(1), m.group(2), m.group(3))
    if package is None:
        fail(f"{path}: no package line")
    return package, messages


# --- Go sources ---------------------------------------------------------------------------

GO_STRUCT = re.compile(r"^type (\w+) struct \{\s*$")
GO_NAMED = re.compile(r"^type (\w+) (\[\]|map\[\w+\])(\S+)\s*$")
GO_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?(\*?[\w.\[\]*]+)\s+`([^`]*)`")
GO_TAG = re.compile(r'(\w+):"([^"]*)"')


class GoField:
    def __init__(self, name, go_type, tags, markers):
        self.name = name
        self.go_type = go_type
        self.tags = tags
        self.markers = markers  # [(key, value)] from "// +key=value" lines above the field

    @property
    def json(self):
        """(json name, omitempty, inline); name None for json:"-"."""
        spec = self.tags.get("json")
        if spec is None:
            return (None, False, False)
        parts = spec.split(",")
        if parts[0] == "-":
            return (None, False, False)
        return (parts[0], "omitempty" in parts[1:], "inline" in parts[1:])

    @property
    def number(self):
        spec = self.tags.get("protobuf")
        return int(spec.split(",")[1]) if spec else None


def read_go(directory):
    """{struct: [GoField]} and {named slice/map type: element Go type} of one package."""
    structs = {}
    named = {}
    for entry in sorted(os.listdir(directory)):
        if (not entry.endswith(".go") or entry.endswith("_test.go")
                or entry.startswith("zz_generated") or entry.startswith("generated.")
                or "swagger_doc" in entry):
            continue
        with open(os.path.join(directory, entry), encoding="utf-8") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            m = GO_NAMED.match(line)
            if m:
                named[m.group(1)] = (m.group(2), m.group(3))
            m = GO_STRUCT.match(line)
            i += 1
            if not m:
                continue
            fields = []
            markers = []
            while i < len(lines) and not lines[i].startswith("}"):
                body = lines[i].strip()
                i += 1
                if body.startswith("//"):
                    text = body[2:].strip()
                    if text.startswith("+"):
                        key, _, value = text[1:].partition("=")
                        markers.append((key.strip(), value.strip()))
                    continue
                if not body:
                    continue
                fm = GO_FIELD.match(body)
                if fm:
                    tags = dict(GO_TAG.findall(fm.group(3)))
                    fields.append(GoField(fm.group(1), fm.group(2), tags, markers))
                markers = []
            structs[m.group(1)] = fields
    return structs, named


# --- the model ----------------------------------------------------------------------------

class Upstream:
    def __init__(self, roots):
        self.roots = roots
        self.proto = {}  # our package -> {message: {number: (label, type, name)}}
        self.proto_package = {}  # our package -> proto package
        self.go = {}  # our package -> ({struct: [GoField]}, {named: element})

    def load(self, package):
        if package in self.proto:
            return
        directory = package_dir(self.roots, package)
        proto_package, messages = read_proto(os.path.join(directory, "generated.proto"))
        if our_package(proto_package) != package:
            fail(f"{directory}: package {proto_package} is not {package}")
        self.proto[package] = messages
        self.proto_package[package] = proto_package
        self.go[package] = read_go(directory)

    def resolve(self, package, proto_type):
        """A proto type name as seen from `package` -> ('scalar'|'special'|'message', ...)."""
        if proto_type in PROTO_SCALARS:
            return ("scalar", proto_type)
        if proto_type in ("float", "uint32", "uint64", "sint32", "sint64", "fixed32",
                          "fixed64"):
            fail(f"{package}: proto type {proto_type} has no schema type")
        proto_type = proto_type.lstrip(".")
        qualified = proto_type if "." in proto_type else (
            self.proto_package[package] + "." + proto_type)
        if qualified in SPECIAL:
            return ("special", SPECIAL[qualified])
        owner, _, name = qualified.rpartition(".")
        target = our_package(owner)
        if target is None:
            fail(f"{package}: no schema package for {qualified}")
        return ("message", target, name)


def schema_type(up, package, proto_type):
    """Our spelling of a field's value type (without the list or map around it)."""
    kind = up.resolve(package, proto_type)
    if kind[0] != "message":
        return kind[1], None
    _, target, name = kind
    up.load(target)
    if name not in up.proto[target]:
        fail(f"{package}: unknown message {target}.{name}")
    named = up.go[target][1].get(name)
    if named is not None and named[0] == "[]":
        # A Go slice type wrapped for protobuf (ExtraValue): {1 repeated items} on the wire,
        # a JSON list; the loader decodes "[]X" nested in a map or list exactly so.
        items = up.proto[target][name].get(1)
        if items is None or items[0] != "repeated" or len(up.proto[target][name]) != 1:
            fail(f"{target}.{name}: a slice type that is not a list wrapper")
        inner, ref = schema_type(up, target, items[1])
        return "[]" + inner, ref
    spelling = name if target == package else f"{target}.{name}"
    return spelling, (target, name)


def field_entry(up, package, message, number, proto_field, go_field):
    label, proto_type, proto_name = proto_field
    if go_field is None:
        fail(f"{package}.{message}: no Go field for proto field {number}")
    value_type, ref = schema_type(up, package, proto_type)
    if label == "repeated":
        spelling = "[]" + value_type
    elif label == "map":
        spelling = "map[string]" + value_type
    else:
        spelling = value_type
    entry = {"number": number, "type": spelling}
    json_name, omitempty, inline = go_field.json
    if (package, message) in ONE_OF:
        # Not JSON keys: the Go type marshals itself (see ONE_OF); proto names identify them.
        entry["name"] = proto_name
        json_name, omitempty, inline = proto_name, False, False
    elif inline:
        entry["inline"] = True
    elif json_name:
        entry["name"] = json_name
    else:
        fail(f"{package}.{message}.{go_field.name}: no JSON name")
    scalar = label == "optional" and (ref is None and not value_type.startswith("[]"))
    if scalar and (go_field.go_type.startswith("*") or not omitempty):
        entry["keepZero"] = True
    markers = defaultdict(list)
    for key, value in go_field.markers:
        markers[key].append(value)
    if spelling.startswith("[]"):
        if markers.get("listType"):
            entry["listType"] = markers["listType"][-1]
        if markers.get("listMapKey"):
            entry["listMapKeys"] = markers["listMapKey"]
    if "patchMergeKey" in go_field.tags:
        entry["patchMergeKey"] = go_field.tags["patchMergeKey"]
    if "patchStrategy" in go_field.tags:
        entry["patchStrategy"] = go_field.tags["patchStrategy"]
    return entry, ref


def build(up):
    """{package: {type: [field entries]}} for every type reachable from the roots."""
    out = defaultdict(dict)
    pending = [(kind_package(v), k) for v, kinds in KINDS.items() for k in kinds]
    pending += EXTRA_ROOTS
    while pending:
        package, name = pending.pop()
        if name in out[package]:
            continue
        up.load(package)
        message = up.proto[package].get(name)
        if message is None:
            fail(f"no message {package}.{name}")
        go_fields = {f.number: f for f in up.go[package][0].get(name, []) if f.number}
        entries = []
        out[package][name] = entries
        for number in sorted(message):
            entry, ref = field_entry(up, package, name, number, message[number],
                                     go_fields.get(number))
            entries.append(entry)
            if ref is not None:
                pending.append(ref)
    return out


# --- YAML output --------------------------------------------------------------------------

PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9.]*$")


def scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if PLAIN.match(value) and value not in ("true", "false", "null", "yes", "no", "on", "off",
                                            "y", "n"):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_field(entry):
    parts = []
    for key in ("name", "inline", "number", "type", "keepZero", "listType", "listMapKeys",
                "patchMergeKey", "patchStrategy"):
        if key not in entry:
            continue
        value = entry[key]
        if key == "listMapKeys":
            text = "[" + ", ".join(scalar(v) for v in value) + "]"
        elif key == "patchStrategy":
            text = '"' + value + '"'
        else:
            text = scalar(value)
        parts.append(f"{key}: {text}")
    return "    - {" + ", ".join(parts) + "}"


def kinds_of(package):
    kinds = {}
    for api_version, names in KINDS.items():
        if kind_package(api_version) != package:
            continue
        if api_version == "meta.v1":
            for name in names:
                for version in META_KIND_VERSIONS[name]:
                    kinds.setdefault(version, []).append(name)
        else:
            kinds.setdefault(api_version, []).extend(names)
    return {v: sorted(k) for v, k in kinds.items()}


def render(package, types):
    file_name, title = FILES[package]
    lines = [
        f"# {title}.",
        "# Generated by scripts/gen-schemas.py from the upstream sources doc/schemas.md names; do",
        "# not edit by hand, regenerate. Holds the types the served kinds reach.",
        "",
        f"package: {package}",
        "",
    ]
    kinds = kinds_of(package)
    if kinds:
        lines.append("kinds:")
        for api_version in sorted(kinds):
            line = f"  {api_version}: ["
            for i, kind in enumerate(kinds[api_version]):
                item = kind + ("]" if i + 1 == len(kinds[api_version]) else ",")
                if len(line) + 1 + len(item) > 100:  # wrap long flow lists
                    lines.append(line)
                    line = "    " + item
                else:
                    line += ("" if line.endswith("[") else " ") + item
            lines.append(line)
        lines.append("")
    lines.append("types:")
    for name in sorted(types):
        lines.append("")
        lines.append(f"  {name}:")
        if (package, name) in ONE_OF:
            lines.append("    oneOf: true")
        if types[name]:
            lines.append("    fields:")
            lines.extend(render_field(e) for e in types[name])
        else:
            lines.append("    fields: []")
    return file_name, "\n".join(lines) + "\n"


def main(argv):
    if len(argv) not in (2, 3):
        fail("usage: gen-schemas.py UPSTREAM [OUTDIR]")
    roots = source_roots(argv[1])
    out_dir = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src", "api", "schemas")
    up = Upstream(roots)
    packages = build(up)
    for package in sorted(packages):
        if package not in FILES:
            fail(f"no file name for package {package}")
        file_name, text = render(package, packages[package])
        with open(os.path.join(out_dir, file_name), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{file_name}: {len(packages[package])} types")


if __name__ == "__main__":
    main(sys.argv)
