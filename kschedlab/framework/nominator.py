"""Pods nominated to nodes (upstream ``backend/queue/nominator.go``).

Preemption nominates a node for the preemptor before the API update lands; the
scheduler then treats the nominated pod as if it were on that node when
filtering lower- or equal-priority pods. Pods are tracked by key.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.framework.types import PodInfo
>>> n = Nominator()
>>> p = PodInfo.of(Pod.model_validate({"metadata": {"name": "p", "namespace": "ns"},
...                                    "status": {"nominatedNodeName": "node1"}}))
>>> n.add_nominated_pod(p)              # ModeNoop: the pod's own status.nominatedNodeName
>>> [pi.key for pi in n.nominated_pods_for_node("node1")]
['ns/p']
>>> n.add_nominated_pod(p, NominatingInfo(MODE_OVERRIDE, "node2"))
>>> n.nominated_node("ns/p")
'node2'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

MODE_NOOP = "Noop"
MODE_OVERRIDE = "Override"


@dataclass(frozen=True)
class NominatingInfo:
    """``fwk.NominatingInfo``: Override sets ``nominated_node_name`` ("" clears), Noop keeps the pod's own."""

    mode: str = MODE_NOOP
    nominated_node_name: str = ""


def _nnn(pod) -> str:
    return (pod.status.nominated_node_name or "") if pod.status else ""


class Nominator:
    """``nominator``: node -> nominated pods (in nomination order) and pod -> node.

    ``pod_lister(key)`` (optional) returns the live pod or None; a pod that is gone or
    already bound is not nominated, as upstream checks its pod lister.
    """

    def __init__(self, pod_lister: Callable[[str], Any] | None = None):
        self.pod_lister = pod_lister
        self.nominated_pods: dict[str, list[Any]] = {}  # node -> [PodInfo]
        self.nominated_pod_to_node: dict[str, str] = {}

    def add_nominated_pod(self, pod_info, nominating_info: NominatingInfo | None = None) -> None:
        self._delete(pod_info.key)
        mode = nominating_info.mode if nominating_info is not None else MODE_NOOP
        if mode == MODE_OVERRIDE:
            node = nominating_info.nominated_node_name
        else:
            node = _nnn(pod_info.pod)
        if not node:  # an empty name clears the nomination
            return
        if self.pod_lister is not None:
            live = self.pod_lister(pod_info.key)
            if live is None or getattr(getattr(live, "spec", None), "node_name", None):
                return
        self.nominated_pod_to_node[pod_info.key] = node
        pods = self.nominated_pods.setdefault(node, [])
        if any(p.key == pod_info.key for p in pods):
            return
        pods.append(pod_info)

    def update_nominated_pod(self, old_pod, new_pod_info) -> None:
        """``UpdateNominatedPod``: keep an in-memory nomination when neither version names a node."""
        info = None
        key = new_pod_info.key
        if not _nnn(old_pod) and not _nnn(new_pod_info.pod) and key in self.nominated_pod_to_node:
            info = NominatingInfo(MODE_OVERRIDE, self.nominated_pod_to_node[key])
        self._delete(key)
        self.add_nominated_pod(new_pod_info, info)

    def delete_nominated_pod_if_exists(self, key: str) -> None:
        self._delete(key)

    def _delete(self, key: str) -> None:
        node = self.nominated_pod_to_node.pop(key, None)
        if node is None:
            return
        pods = [p for p in self.nominated_pods.get(node, []) if p.key != key]
        if pods:
            self.nominated_pods[node] = pods
        else:
            self.nominated_pods.pop(node, None)

    def nominated_pods_for_node(self, node: str) -> list[Any]:
        return list(self.nominated_pods.get(node, []))

    def nominated_pods_by_node(self) -> dict[str, list[Any]]:
        """Node -> nominated PodInfos, in nomination order."""
        return {node: list(pods) for node, pods in self.nominated_pods.items()}

    def nominate(self, pod_info, node: str | None) -> None:
        """Nominate ``pod_info`` to ``node`` (None or "" clears): an Override nomination."""
        self.add_nominated_pod(pod_info, NominatingInfo(MODE_OVERRIDE, node or ""))

    def nominated_node(self, key: str) -> str | None:
        return self.nominated_pod_to_node.get(key)
