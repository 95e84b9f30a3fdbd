"""PodGroup and CompositePodGroup scheduling (GenericWorkload, TopologyAwareWorkloadScheduling,
CompositePodGroup gates).

* :mod:`.state` — the scheduler's view of groups: members, per-group pod states, roots;
* :mod:`.cycle_validation` — the checks before a cycle (scheduler name, priority, policy);
* :mod:`.placement` — candidate node sets and proposed assignments;
* :mod:`.algorithm` — the PodGroup scheduling algorithm: default, placement-based and the
  recursive CompositePodGroup search with rollback;
* :mod:`.cycle` — the PodGroup scheduling cycle: validate, run the algorithm,
  PodGroupPostFilter, bind atomically, update ``PodGroupInitiallyScheduled``;
* :mod:`.conditions` — the condition helper; :mod:`.conformance` — the conformance stages.

The GangScheduling, TopologyPlacement and PodGroupPodsCount plugins live in
:mod:`kschedlab.plugins`.
"""
