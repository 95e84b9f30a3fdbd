"""DefaultBinder: binds the pod to the chosen node (the Binding subresource).

With ``ClearingNominatedNodeNameAfterBinding`` (beta, on by default since v1.35) the API server
clears the pod's ``status.nominatedNodeName`` when it binds the pod. With
``PodTopologyLabelsAdmission`` (beta, on by default since v1.35) the bound pod also gets the node's
``topology.kubernetes.io/zone`` and ``/region`` labels (:mod:`kschedlab.api.binding`).
"""

from kschedlab.api.binding import admit_binding
from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import Status

NAME = "DefaultBinder"
GATE_CLEAR_NOMINATED = "ClearingNominatedNodeNameAfterBinding"


@register
class DefaultBinder(Plugin):
    name = NAME

    def bind(self, state, pod_info, node_name: str) -> Status:
        cluster = self.handle.cluster
        gates = self.handle.gates
        # the Binding passes the PodTopologyLabels admission, then the storage binds the pod
        labels = admit_binding({}, "Node", cluster.nodes.get(node_name), gates)
        cluster.bind(pod_info.key, node_name, labels=labels, gates=gates)
        if gates is not None and gates.enabled(GATE_CLEAR_NOMINATED):
            pod = cluster.pods[pod_info.key]
            if pod.status is not None:
                pod.status.nominated_node_name = None
        return Status()
