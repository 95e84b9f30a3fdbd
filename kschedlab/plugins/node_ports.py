"""NodePorts: a pod's host ports must be free on the node."""

import numpy as np

from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of
from kschedlab.framework.interface import Plugin, SignFragment, Verdicts, register
from kschedlab.framework.signers import HOST_PORTS_SIGNER_NAME, host_ports_signer
from kschedlab.framework.status import Code, Status

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"


def conflicts(used: set[tuple[str, str, int]], ip: str, protocol: str, port: int) -> bool:
    """``HostPortInfo.CheckConflict``: 0.0.0.0 clashes with every IP on the same protocol/port."""
    if port <= 0:
        return False
    if ip == BIND_ALL:
        return any(p == port and proto == protocol for _, proto, p in used)
    return (BIND_ALL, protocol, port) in used or (ip, protocol, port) in used


def fits_ports(wanted, used) -> bool:
    return not any(conflicts(used, *want) for want in wanted)


@register
class NodePorts(Plugin):
    name = NAME

    def events_to_register(self):
        """``EventsToRegister``: a pod holding a wanted host port deleted; a node added (no hint).
        Pod updates are ignored: ``spec.containers[*].ports`` is immutable."""
        from kschedlab.framework.events import NODE, POD, ActionType, ClusterEvent

        return [(ClusterEvent(POD, ActionType.Delete), node_ports_after_pod_deleted),
                (ClusterEvent(NODE, ActionType.Add), None)]

    def sign_pod(self, pod_info):
        """Signature: the host port numbers of the containers."""
        return [SignFragment(HOST_PORTS_SIGNER_NAME, host_ports_signer(pod_info.pod))], None

    def pre_filter(self, state, pod_info, snapshot):
        if not pod_info.ports:
            return None, Status.skip()
        return None, Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        failed = np.zeros(len(rows), bool)
        if pod_info.ports and snapshot.port_rows:
            busy = np.fromiter(snapshot.port_rows, np.int64, len(snapshot.port_rows))
            for i in np.flatnonzero(np.isin(rows, busy)):
                failed[i] = not fits_ports(pod_info.ports, snapshot.used_ports(int(rows[i])))
        return Verdicts.from_mask(failed, Code.Unschedulable, (ERR_REASON,))


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def node_ports_after_pod_deleted(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodDeleted``: Queue when a scheduled (or nominated) pod that held one of
    the rejected pod's host ports was deleted."""
    from kschedlab.framework.types import host_ports

    deleted, _ = as_objects(old_obj, None, "Pod")
    if deleted is None:
        raise HintError("expected a deleted *v1.Pod")
    if not deleted.spec.node_name and not (deleted.status.nominated_node_name if deleted.status else None):
        return SKIP
    ports = host_ports(deleted)
    if not ports:
        return SKIP
    used = set(ports)
    if not any(conflicts(used, *want) for want in host_ports(pod_of(pod_info))):
        return SKIP
    return QUEUE
