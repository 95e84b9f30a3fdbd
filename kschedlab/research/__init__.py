"""Research at scale: sweeps of scheduler configurations and custom plugins over workloads and
seeds on Dask (:mod:`~kschedlab.research.sweep`), job traces read, drawn and replayed
(:mod:`~kschedlab.research.trace`), and what a run is measured by
(:mod:`~kschedlab.research.metrics`)."""

from kschedlab.research.run import Run, Variant, Workload, execute
from kschedlab.research.trace import arrivals, generate_trace, make_nodes, read_trace, write_trace

__all__ = ["Run", "Variant", "Workload", "execute", "arrivals", "generate_trace", "make_nodes", "read_trace",
           "write_trace"]
