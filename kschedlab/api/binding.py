"""What the API server does when a pod is bound: the ``pods/binding`` subresource.

The scheduler's DefaultBinder creates a Binding (target: the node). Before it is stored, the
``PodTopologyLabels`` admission plugin (gate ``PodTopologyLabelsAdmission``, beta and on by
default since v1.35) copies the node's ``topology.kubernetes.io/zone`` and
``topology.kubernetes.io/region`` labels into the Binding's labels; the binding storage then
sets ``spec.nodeName``, merges the Binding's annotations and, under the same gate, its labels
into the pod, overwriting pod labels of the same key. The pod can read them back through the
Downward API (:mod:`kschedlab.api.downward_api`).

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.features import FeatureGates
>>> node = Node.model_validate({"metadata": {"name": "n1", "labels": {
...     "topology.kubernetes.io/zone": "antarctica-east1", "topology.kubernetes.io/region": "antarctica",
...     "kubernetes.io/hostname": "n1"}}})
>>> labels = admit_binding({}, "Node", node, FeatureGates())
>>> labels
{'topology.kubernetes.io/region': 'antarctica', 'topology.kubernetes.io/zone': 'antarctica-east1'}
>>> pod = Pod.model_validate({"metadata": {"name": "p", "labels": {"app": "web"}}})
>>> bind_pod(pod, "n1", labels=labels, gates=FeatureGates())
>>> pod.spec.node_name, sorted(pod.metadata.labels)
('n1', ['app', 'topology.kubernetes.io/region', 'topology.kubernetes.io/zone'])
>>> admit_binding({}, "Node", node, FeatureGates({"PodTopologyLabelsAdmission": False}))
{}
"""

from __future__ import annotations

from typing import Mapping

__all__ = ["GATE", "PLUGIN_NAME", "TOPOLOGY_LABELS", "admit_binding", "bind_pod", "topology_labels_for_node"]

GATE = "PodTopologyLabelsAdmission"
PLUGIN_NAME = "PodTopologyLabels"
#: the node labels the admission plugin copies (its default configuration)
TOPOLOGY_LABELS: tuple[str, ...] = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def _enabled(gates) -> bool:
    if gates is None:
        from kschedlab.features import FeatureGates

        gates = FeatureGates()
    return gates.enabled(GATE)


def topology_labels_for_node(node, keys: tuple[str, ...] = TOPOLOGY_LABELS) -> dict[str, str]:
    """The topology labels of ``node`` to copy (``{}`` for a node that does not exist, as upstream
    ignores NotFound).

    >>> topology_labels_for_node(None)
    {}
    """
    if node is None:
        return {}
    labels = node.metadata.labels or {}
    return {k: labels[k] for k in sorted(keys) if k in labels}  # (in key order, as the node's sorted labels)


def admit_binding(binding_labels: Mapping[str, str], target_kind: str, node, gates=None,
                  keys: tuple[str, ...] = TOPOLOGY_LABELS) -> dict[str, str]:
    """``PodTopologyLabels`` admission of a Binding: the Binding's labels after it ran.

    Only a Binding whose target is a Node is changed; the node's labels named in ``keys`` (the
    plugin's ``Config.Labels``) overwrite labels of the same key the Binding already carries.
    ``node`` is the target node (None when it does not exist); ``gates`` a FeatureGates (v1.37
    defaults when None).
    """
    out = dict(binding_labels)
    if not _enabled(gates) or target_kind != "Node":
        return out
    out.update(topology_labels_for_node(node, keys))
    return out


def bind_pod(pod, node_name: str, *, labels: Mapping[str, str] | None = None,
             annotations: Mapping[str, str] | None = None, gates=None) -> None:
    """The binding storage (``setPodNodeAndMetadata``): set ``spec.nodeName``, merge the Binding's
    annotations and, with ``PodTopologyLabelsAdmission``, its labels into ``pod`` (overwriting).
    A pod already bound elsewhere is refused with ValueError and left unchanged."""
    if pod.spec.node_name and pod.spec.node_name != node_name:
        raise ValueError(f"pod {pod.metadata.name} is already assigned to node {pod.spec.node_name!r}")
    pod.spec.node_name = node_name
    if annotations:
        pod.metadata.annotations = {**(pod.metadata.annotations or {}), **annotations}
    if labels and _enabled(gates):
        pod.metadata.labels = {**(pod.metadata.labels or {}), **labels}
