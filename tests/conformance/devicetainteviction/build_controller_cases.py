"""Writes controller.json: rows of upstream's TestController
(pkg/controller/devicetainteviction/device_taint_eviction_test.go) as ``device-taint-eviction``
cases.  The fixtures are rebuilt here as plain objects the way the test's builders make them
(``st.MakeResourceSlice(node, driver)``: slice ``<node>-<driver>``, pool ``<node>``; claims allocated
with request ``req-1``); run ``python build_controller_cases.py`` to regenerate."""

from __future__ import annotations

import copy
import json
from pathlib import Path

SOURCE = "kubernetes/kubernetes pkg/controller/devicetainteviction/device_taint_eviction_test.go@master :: TestController :: "
T0 = "2000-01-01T00:00:00Z"
T10 = "2000-01-01T00:00:10Z"
NODE, DRIVER, KEY, VALUE = "worker", "some-driver", "example.com/taint", "something"
CLAIM = "my-pod-my-resource"


def slice_(devices):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{NODE}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": NODE, "pool": {"name": NODE, "resourceSliceCount": 1},
                     "devices": devices}}


SLICE = slice_([{"name": "instance"},
                {"name": "instance-no-schedule", "taints": [{"key": KEY, "effect": "NoSchedule"}]},
                {"name": "instance-no-execute", "taints": [{"key": KEY, "effect": "None", "timeAdded": T0},
                                                           {"key": KEY, "effect": "NoExecute", "timeAdded": T0}]}])
SLICE_TAINTED = copy.deepcopy(SLICE)
SLICE_TAINTED["spec"]["devices"][0]["taints"] = [{"key": KEY, "value": VALUE, "effect": "NoExecute", "timeAdded": T0}]
SLICE2 = copy.deepcopy(SLICE)
SLICE2["metadata"]["name"] += "-2"
SLICE2["spec"].update({"nodeName": "worker-2", "pool": {"name": "worker-2", "generation": 1, "resourceSliceCount": 1}})


def rule(name, uid, effect="NoExecute", **selector):
    return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": name, "uid": uid},
            "spec": {"deviceSelector": selector, "taint": {"key": KEY, "value": VALUE, "effect": effect, "timeAdded": T0}}}


RULE_EVICT = rule("evict", "1234", driver=DRIVER)
RULE_NONE = rule("evict", "1234", "None", driver=DRIVER)


def claim(name=CLAIM, ns="default", owner=("my-pod", "1234"), devices=("instance",), reserved=(("my-pod", "1234"),),
          tolerations=None):
    results = [{"driver": DRIVER, "pool": NODE, "device": d, "request": "req-1"} for d in devices]
    if tolerations:
        results[0]["tolerations"] = tolerations
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": owner[0], "uid": owner[1], "controller": True}]},
            "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": "my-resource-class"}}]}},
            "status": {"allocation": {"devices": {"results": results}},
                       "reservedFor": [{"resource": "pods", "name": n, "uid": u} for n, u in reserved]}}


IN_USE = claim()
IN_USE_OTHER_NS = claim(ns="default-other", owner=("my-pod", "1234-2"), devices=("instance-no-schedule", "instance-no-execute"),
                        reserved=(("my-pod", "1234-2"),))
IN_USE_OTHER_NAME = claim(name=CLAIM + "-other", owner=("my-pod-other", "1234-3"),
                          devices=("instance-no-schedule", "instance-no-execute"), reserved=(("my-pod-other", "1234-3"),))
IN_USE_OTHER_NAME_SHARED = claim(name=CLAIM + "-other", owner=("my-pod-other", "1234-3"),
                                 devices=("instance-no-schedule", "instance-no-execute"),
                                 reserved=(("my-pod", "1234"), ("my-pod-other", "1234-3")))
IN_USE_TOLERATION = claim(tolerations=[{"key": KEY, "operator": "Equal", "value": VALUE, "effect": "NoExecute",
                                        "tolerationSeconds": 3600}])


def pod(name="my-pod", ns="default", uid="1234", claims=(("my-resource", CLAIM),)):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": uid},
            "spec": {"nodeName": NODE, "resourceClaims": [{"name": n, "resourceClaimName": c} for n, c in claims]}}


POD = pod()
POD_OTHER_NS = pod(ns="default-other", uid="1234-2")
POD_OTHER_NAME = pod(name="my-pod-other", uid="1234-3", claims=(("my-resource", CLAIM + "-other"),))
POD_TWO_CLAIMS = pod(claims=(("my-resource", CLAIM), ("my-resource-other", CLAIM + "-other")))


def cond(status, reason, message, when=T0):
    return {"type": "EvictionInProgress", "status": status, "reason": reason, "message": message,
            "lastTransitionTime": when}


def none_message(published, allocated, pods, namespaces):
    plural = lambda n, one, many: one if n == 1 else many.format(n=n)  # noqa: E731
    return (plural(published, "1 published device selected. ", "{n} published devices selected. ")
            + plural(allocated, "1 allocated device selected. ", "{n} allocated devices selected. ")
            + plural(pods, "1 pod would be evicted in ", "{n} pods would be evicted in ")
            + plural(namespaces, "1 namespace ", "{n} different namespaces ")
            + "if the effect was NoExecute. This information will not be updated again. "
              "Recreate the DeviceTaintRule to trigger an update.")


def case(name, objects, steps, notes=""):
    out = {"id": f"devicetainteviction/controller/{name}", "source": SOURCE + name, "stage": "device-taint-eviction",
           "featureGates": {"DRADeviceTaints": True, "DRADeviceTaintRules": True}, "start": T0,
           "objects": objects, "steps": [s[0] for s in steps], "expected": {"steps": [s[1] for s in steps]}}
    if notes:
        out["notes"] = notes
    return out


CASES = [
    case("rule-status", [RULE_EVICT], [({"advance": 0}, {"rules": {"evict": cond("False", "NotStarted", "")}})]),
    case("tainted-claim-through-rule", [RULE_EVICT, IN_USE],
         [({"advance": 0}, {"rules": {"evict": cond("False", "NotStarted", "")}, "evicted": []})],
         "no pod uses the claim: nothing to evict"),
    case("evict-pod-resourceclaim", [SLICE_TAINTED, SLICE2, IN_USE, POD],
         [({"advance": 0}, {"evicted": ["default/my-pod"], "rules": {}})]),
    case("evict-pod-rule", [IN_USE, POD, RULE_EVICT],
         [({"advance": 0}, {"evicted": ["default/my-pod"],
                            "rules": {"evict": cond("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")}}),
          ({"advance": 10}, {"evicted": ["default/my-pod"],
                             "rules": {"evict": cond("False", "Completed", "1 pod evicted since starting the controller.", T10)}})]),
    case("evict-pod-rule-later", [IN_USE_TOLERATION, POD, RULE_EVICT],
         [({"advance": 0}, {"evicted": [],
                            "rules": {"evict": cond("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")}}),
          ({"advance": 3600}, {"evicted": ["default/my-pod"],
                               "rules": {"evict": cond("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")}}),
          ({"advance": 10}, {"evicted": ["default/my-pod"],
                             "rules": {"evict": cond("False", "Completed", "1 pod evicted since starting the controller.",
                                                     "2000-01-01T01:00:10Z")}})]),
    case("evict-many-pods-many-namespaces", [IN_USE, POD, IN_USE_OTHER_NS, POD_OTHER_NS, RULE_EVICT],
         [({"advance": 0}, {"evicted": ["default-other/my-pod", "default/my-pod"], "rules": {"evict": cond(
             "True", "PodsPendingEviction", "2 pods need to be evicted in 2 different namespaces.")}}),
          ({"advance": 10}, {"rules": {"evict": cond("False", "Completed", "2 pods evicted since starting the controller.",
                                                     T10)}})]),
    case("evict-many-pods-same-namespace", [IN_USE, POD, IN_USE_OTHER_NAME, POD_OTHER_NAME, RULE_EVICT],
         [({"advance": 0}, {"evicted": ["default/my-pod", "default/my-pod-other"], "rules": {"evict": cond(
             "True", "PodsPendingEviction", "2 pods need to be evicted in 1 namespace.")}}),
          ({"advance": 10}, {"rules": {"evict": cond("False", "Completed", "2 pods evicted since starting the controller.",
                                                     T10)}})]),
    case("none-pod-rule", [SLICE, IN_USE, POD, RULE_NONE],
         [({"advance": 0}, {"evicted": [], "rules": {"evict": cond("False", "NoEffect", none_message(3, 1, 1, 1))}})]),
    case("none-many-pods-many-namespaces", [IN_USE, POD, IN_USE_OTHER_NS, POD_OTHER_NS, RULE_NONE],
         [({"advance": 0}, {"evicted": [], "rules": {"evict": cond("False", "NoEffect", none_message(0, 3, 2, 2))}})]),
    case("none-many-pods-same-namespace", [IN_USE, POD, IN_USE_OTHER_NAME, POD_OTHER_NAME, RULE_NONE],
         [({"advance": 0}, {"evicted": [], "rules": {"evict": cond("False", "NoEffect", none_message(0, 3, 2, 1))}})]),
    case("multiple-claims-same-rule", [IN_USE, IN_USE_OTHER_NAME_SHARED, POD_TWO_CLAIMS, RULE_EVICT],
         [({"advance": 0}, {"evicted": ["default/my-pod"], "rules": {"evict": cond(
             "True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")}}),
          ({"advance": 10}, {"rules": {"evict": cond("False", "Completed", "1 pod evicted since starting the controller.",
                                                     T10)}})]),
]

if __name__ == "__main__":
    out = Path(__file__).with_name("controller.json")
    out.write_text(json.dumps(CASES, indent=1) + "\n")
    print(f"wrote {len(CASES)} cases to {out}")
