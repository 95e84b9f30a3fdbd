"""The conformance runner: upstream unit-test rows as data (``shared/CASES.md``), checked
against kschedlab.

* :mod:`.runner` — dispatch a case to its stage, collect diffs, report
  ``N passed, N failed, K expected failures``;
* :mod:`.compare` — how results are compared;
* :mod:`.expected_failures` — the cases the project knows it does not pass yet;
* one module per stage family: :mod:`.plugins` (prefilter, filter, score, args, ...),
  :mod:`.preemption`, :mod:`.queue`, :mod:`.podgroup`, :mod:`.placement`,
  :mod:`.podgroup_cycle` (the PodGroup cycle stage by stage, with upstream's test doubles in
  :mod:`.podgroup_doubles`), :mod:`.kubelet` (node-pressure eviction), :mod:`.dra` (the structured
  allocator).
"""

from kschedlab.conformance.runner import STAGES, CaseResult, Report, case_files, run_case, run_cases, run_paths

__all__ = ["STAGES", "CaseResult", "Report", "case_files", "run_case", "run_cases", "run_paths"]
