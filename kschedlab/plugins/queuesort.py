"""PrioritySort: higher priority first, then earlier enqueue time."""

from kschedlab.framework.interface import Plugin, register

NAME = "PrioritySort"


@register
class PrioritySort(Plugin):
    name = NAME

    def less(self, a, b) -> bool:
        pa, pb = a.pod_info.priority, b.pod_info.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)
