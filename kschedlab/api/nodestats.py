"""``kschedlab.io/v1alpha1`` NodeStatsSummary: what the kubelet's summary API
(``/stats/summary``, ``k8s.io/kubelet/pkg/apis/stats/v1alpha1.Summary``) reports for one
node, written as a manifest so scenarios can give node-pressure eviction its inputs.

Not a Kubernetes kind (the summary API is served by the kubelet, not stored).
``metadata.name`` is the node; ``node`` and ``pods`` are the Summary's two fields in its
JSON names (``node.memory.availableBytes``, ``node.fs``, ``node.runtime.imageFs``,
``node.rlimit``, ``pods[].podRef``, ``pods[].memory.workingSetBytes``,
``pods[].containers[].rootfs``...); ``kschedlab.kubelet`` reads them.

>>> s = NodeStatsSummary.model_validate({"apiVersion": "kschedlab.io/v1alpha1", "kind": "NodeStatsSummary",
...     "metadata": {"name": "node-1"}, "node": {"memory": {"availableBytes": 1, "workingSetBytes": 2}}})
>>> s.name, s.node["memory"]["workingSetBytes"], s.pods
('node-1', 2, [])
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .meta import KubeObject

__all__ = ["NodeStatsSummary"]


class NodeStatsSummary(KubeObject):
    """The summary-API stats of one node and its pods."""

    API_VERSION: ClassVar[str] = "kschedlab.io/v1alpha1"
    KIND: ClassVar[str] = "NodeStatsSummary"
    NAMESPACED: ClassVar[bool] = False

    node: dict[str, Any] = Field(default_factory=dict)
    pods: list[dict[str, Any]] = Field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The Summary as the kubelet's API serves it (``{"node": ..., "pods": ...}``).

        >>> NodeStatsSummary(metadata={"name": "n"}).summary()
        {'node': {'nodeName': 'n'}, 'pods': []}
        """
        return {"node": {"nodeName": self.name, **self.node}, "pods": list(self.pods)}
