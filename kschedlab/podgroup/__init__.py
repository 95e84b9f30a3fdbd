"""PodGroup and CompositePodGroup scheduling support (GenericWorkload).

Part A (here now): the scheduler's view of pod groups — membership and per-group pod
states read from a :class:`~kschedlab.cluster.Cluster` (:mod:`.state`), the
``PodGroupInitiallyScheduled`` condition helper (:mod:`.conditions`), the checks run
before a PodGroup scheduling cycle (:mod:`.cycle_validation`) and the conformance
stages for them (:mod:`.conformance`). The GangScheduling plugin lives in
:mod:`kschedlab.plugins.gang_scheduling`.

Part B (to come): the PodGroup scheduling cycle, the placement algorithm and
CompositePodGroup hierarchies.
"""
