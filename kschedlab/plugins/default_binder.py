"""DefaultBinder: binds the pod to the chosen node (the Binding subresource)."""

from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import Status

NAME = "DefaultBinder"


@register
class DefaultBinder(Plugin):
    name = NAME

    def bind(self, state, pod_info, node_name: str) -> Status:
        self.handle.cluster.bind(pod_info.key, node_name)
        return Status()
