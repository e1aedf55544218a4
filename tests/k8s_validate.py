#!/usr/bin/env python3
"""k8s_validate.py DIR... -- checks every Kubernetes object of `sharesim plan --k8s` folders
against the Kubernetes OpenAPI schemas that the kubernetes-validate package bundles
(tests/test_k8s.c runs it with the interpreter of build/venv, which scripts/install-deps test
creates).

Every YAML document with an apiVersion and a kind is validated strictly (no field the schema
does not know, every type right). A pod patch is a strategic-merge patch of a Deployment or
StatefulSet, which alone lacks the fields the API requires (selector, image); it is validated
as the object it makes of a minimal workload of that kind whose container has the patch's
name, merged the way the API server merges it (maps key by key, containers by name, other
lists replaced). Label keys and values, and node selectors, are checked against Kubernetes'
own rules, which the schemas do not carry. Documents without apiVersion (Helm values, the
tools' configs) are the C test's to check.

Prints one line per document ("ok FILE KIND NAME" or "FAIL FILE: why") and exits 1 when any
failed, 2 on a usage error or when the package is missing.
"""
import os
import re
import sys

try:
    import kubernetes_validate
    import yaml
except ImportError as e:  # the C test skips before calling us; say why if run by hand
    print("kubernetes-validate is not installed (%s): scripts/install-deps test" % e)
    sys.exit(2)

K8S_VERSION = "1.37"
NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def label_problem(key, value):
    """Kubernetes' rule for a label key (optional DNS-subdomain prefix and '/', a name of at
    most 63) and value (empty, or a name of at most 63)."""
    prefix, _, name = key.rpartition("/")
    if prefix:
        if len(prefix) > 253 or not all(DNS1123_LABEL.match(p) for p in prefix.split(".")):
            return "label key %r: prefix is not a DNS subdomain" % key
    if not name or len(name) > 63 or not NAME.match(name):
        return "label key %r: name part is not a qualified name" % key
    if not isinstance(value, str):
        return "label %r: value %r is not a string" % (key, value)
    if value and (len(value) > 63 or not NAME.match(value)):
        return "label %r: value %r is not a label value" % (key, value)
    return None


def merge(base, patch):
    """A strategic merge of patch into base, for the fields a pod patch carries: maps merge,
    `containers` merge by name, any other list is replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            if k == "containers" and isinstance(v, list) and isinstance(base.get(k), list):
                byname = {c.get("name"): dict(c) for c in base[k]}
                order = [c.get("name") for c in base[k]]
                for c in v:
                    n = c.get("name")
                    if n in byname:
                        byname[n] = merge(byname[n], c)
                    else:
                        byname[n] = c
                        order.append(n)
                out[k] = [byname[n] for n in order]
            elif k in out:
                out[k] = merge(out[k], v)
            else:
                out[k] = v
        return out
    return patch


def workload_base(doc):
    """The smallest valid workload the patch could apply to: its kind and name, a selector,
    and one container of the patch's container name with an image."""
    spec = doc.get("spec", {}).get("template", {}).get("spec", {})
    names = [c.get("name") for c in spec.get("containers", [])]
    labels = {"app": "sharesim-check"}
    base = {
        "apiVersion": doc["apiVersion"],
        "kind": doc["kind"],
        "metadata": {"name": doc.get("metadata", {}).get("name", "x")},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": n, "image": "registry.example/app:1"}
                                        for n in names]},
            },
        },
    }
    if doc["kind"] == "StatefulSet":
        base["spec"]["serviceName"] = doc["metadata"]["name"]
    return base


def check_labels(doc):
    meta = doc.get("metadata", {})
    for k, v in (meta.get("labels") or {}).items():
        p = label_problem(k, v)
        if p:
            return p
    sel = doc.get("spec", {}).get("template", {}).get("spec", {}).get("nodeSelector") or {}
    for k, v in sel.items():
        p = label_problem(k, v)
        if p:
            return "nodeSelector: " + p
    return None


def check_doc(path, doc):
    if not isinstance(doc, dict) or "apiVersion" not in doc or "kind" not in doc:
        return None, None
    obj = doc
    if doc["kind"] in ("Deployment", "StatefulSet"):
        obj = merge(workload_base(doc), doc)
        containers = obj["spec"]["template"]["spec"]["containers"]
        if len(containers) != len(doc["spec"]["template"]["spec"]["containers"]):
            return doc, "the patch adds a container the workload does not have"
    problem = check_labels(doc)
    if problem:
        return doc, problem
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as e:
        where = ".".join(str(p) for p in e.path)
        return doc, "%s: %s" % (where, e.message)
    except Exception as e:  # an unknown kind or apiVersion is a failure here, not a warning
        return doc, "%s: %s" % (type(e).__name__, getattr(e, "message", str(e)))
    return doc, None


def main(argv):
    if len(argv) < 2:
        print("usage: k8s_validate.py DIR...")
        return 2
    failed = checked = 0
    for d in argv[1:]:
        for f in sorted(os.listdir(d)):
            if not f.endswith(".yaml"):
                continue
            path = os.path.join(d, f)
            with open(path) as fp:
                try:
                    docs = [x for x in yaml.safe_load_all(fp) if x is not None]
                except yaml.YAMLError as e:
                    print("FAIL %s: not YAML: %s" % (path, e))
                    failed += 1
                    continue
            for doc in docs:
                obj, problem = check_doc(path, doc)
                if obj is None:
                    continue
                checked += 1
                if problem:
                    failed += 1
                    print("FAIL %s: %s" % (path, problem))
                else:
                    print("ok %s %s %s" % (path, obj["kind"], obj["metadata"].get("name", "-")))
    print("%d objects checked, %d failed" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
