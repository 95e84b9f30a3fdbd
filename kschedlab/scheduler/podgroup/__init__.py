"""The PodGroup scheduling cycle for gangs and CompositePodGroups (GenericWorkload,
TopologyAwareWorkloadScheduling, CompositePodGroup gates).

* :mod:`.cycle_validation` — the checks before a cycle (scheduler name, priority, policy);
* :mod:`.algorithm` — the PodGroup scheduling algorithm: default, placement-based and the
  recursive CompositePodGroup search with rollback;
* :mod:`.cycle` — the PodGroup scheduling cycle: validate, run the algorithm,
  PodGroupPostFilter, bind atomically, update ``PodGroupInitiallyScheduled``;
* :mod:`.conditions` — the condition helper.

The scheduler's view of groups (members, per-group pod states, roots) is
:mod:`kschedlab.framework.podgroups`; placements are :mod:`kschedlab.framework.placement`;
the GangScheduling, TopologyPlacementGenerator and PodGroupPodsCount plugins live in
:mod:`kschedlab.plugins`.
"""
