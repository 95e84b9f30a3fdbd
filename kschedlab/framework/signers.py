"""Pod signature fragments shared by several plugins (``fwk/signers.go``).

A plugin's ``sign_pod`` returns :class:`~kschedlab.framework.interface.SignFragment`
values keyed by the signer names below.  Two plugins that depend on the same part
of the pod (NodeUnschedulable and TaintToleration both read the tolerations) use
the same name and the same value, so the fragment appears once in the signature.
Values are plain JSON data in a canonical order (lists sorted where the pod's
order does not matter), so equal scheduling constraints give equal signatures.

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"spec": {"containers": [
...     {"name": "a", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
...     "tolerations": [{"key": "b", "operator": "Exists"}, {"key": "a", "operator": "Exists"}]}})
>>> host_ports_signer(pod), image_names_signer(pod)
([8080], ['nginx:latest'])
>>> [t["key"] for t in tolerations_signer(pod)]
['a', 'b']
"""

from __future__ import annotations

from typing import Any

DYNAMIC_RESOURCES_SIGNER_NAME = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES_SIGNER_NAME = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER_NAME = "v1.Pod.Labels"
NODE_NAME_SIGNER_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER_NAME = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER_NAME = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER_NAME = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER_NAME = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER_NAME = "v1.Pod.Spec.RequiredFeatures()"


def _dump(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def host_ports_signer(pod) -> list[int]:
    """``HostPortsSigner``: the distinct host port numbers of all containers and init
    containers, sorted (as upstream: the number only, not the protocol or host IP)."""
    ports = {p.host_port for c in (*pod.spec.containers, *pod.spec.init_containers) for p in c.ports
             if p.host_port}
    return sorted(ports)


def _requirements_signer(reqs) -> list[str]:
    import json

    out = []
    for req in reqs:
        d = _dump(req)
        d["values"] = sorted(d.get("values") or [])
        out.append(json.dumps(d, sort_keys=True, separators=(",", ":")))
    return sorted(out)


def _term_signer(term) -> dict:
    return {"MatchExpressions": _requirements_signer(term.match_expressions),
            "MatchFields": _requirements_signer(term.match_fields)}


def node_affinity_signer(pod) -> dict | None:
    """``NodeAffinitySigner``: the pod's required and preferred node affinity terms in a
    canonical order (values, requirements and terms sorted); None without node affinity."""
    import json

    affinity = pod.spec.affinity.node_affinity if pod.spec.affinity else None
    if affinity is None:
        return None
    dumps = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))  # noqa: E731
    preferred = sorted(dumps({"Weight": t.weight or 0, "Preference": _term_signer(t.preference)})
                       for t in affinity.preferred_during_scheduling_ignored_during_execution)
    required_sel = affinity.required_during_scheduling_ignored_during_execution
    required = sorted(dumps(_term_signer(t)) for t in required_sel.node_selector_terms) if required_sel else []
    return {"Required": required, "Preferred": preferred}


def tolerations_signer(pod) -> list[dict]:
    """``TolerationsSigner``: the tolerations ordered by (key, value), otherwise as written."""
    return [_dump(t) for t in sorted(pod.spec.tolerations, key=lambda t: (t.key or "", t.value or ""))]


def image_names_signer(pod) -> list[str]:
    """The normalized image names (``:latest`` added) of all containers, sorted."""
    from kschedlab.api.core import normalize_image_name

    return sorted(normalize_image_name(c.image or "") for c in (*pod.spec.init_containers, *pod.spec.containers))


def resources_signer(pod_info) -> list[list[Any]]:
    """``computePodResourceRequest``: the pod's effective requests (containers, init
    containers, overhead, pod-level resources), as sorted ``[resource, quantity]`` pairs."""
    return [[name, int(value)] for name, value in sorted(pod_info.requests.items())]
