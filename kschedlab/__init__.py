"""kschedlab: the Kubernetes scheduling stack in Python, as inspectable steps.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> cluster = Cluster.from_manifests(path("default"))
>>> results = Scheduler(cluster).run()
>>> {r.pod: r.node for r in results}["default/trainer-0"]
'gpu-b3'
"""

from kschedlab import plugins  # noqa: F401  (the in-tree plugins register themselves)
from kschedlab.cluster import Cluster, Snapshot
from kschedlab.features import FeatureGates
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler, ScheduleResult

__all__ = ["Cluster", "Snapshot", "FeatureGates", "Code", "Status", "Scheduler", "ScheduleResult"]
__version__ = "0.1.0"
