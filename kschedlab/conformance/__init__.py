"""The conformance runner: upstream unit-test rows as data (``shared/CASES.md``), checked
against kschedlab.

* :mod:`.runner` — dispatch a case to its stage, collect diffs, report ``N passed, N failed``;
* :mod:`.compare` — how results are compared;
* one module per stage family: :mod:`.plugins` (prefilter, filter, score, args, ...),
  :mod:`.preemption`, :mod:`.queue`, :mod:`.podgroup`, :mod:`.kubelet` (node-pressure eviction), :mod:`.dra` (the structured allocator).
"""

from kschedlab.conformance.runner import STAGES, CaseResult, Report, case_files, run_case, run_cases, run_paths

__all__ = ["STAGES", "CaseResult", "Report", "case_files", "run_case", "run_cases", "run_paths"]
