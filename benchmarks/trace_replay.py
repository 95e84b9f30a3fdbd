"""Trace replay at scale: a job trace of the Alibaba PAI 2020 shape
(:data:`kschedlab.research.trace.PAI_2020`) replayed on a cluster of 8-GPU nodes (96 cores,
512 GiB, ``nvidia.com/gpu: 8``) by the full default profile with GenericWorkload on (gangs
through the PodGroup cycle), as one sweep run (:func:`kschedlab.research.run.execute`).

The trace is read as the clock reaches it (``Simulation.stream``), utilisation is kept as
interval means (``ClusterUtilization``), attempts keep no traces and the run keeps no queue
history nor list of attempt results (``Simulation(keep_history=False)``): memory grows with the
pods alive at a time and one timeline row per pod, not with attempts nor nodes x samples.

Run: ``.venv/bin/python benchmarks/trace_replay.py [--pods 100000] [--nodes 5000]
[--arrival-rate 2.0] [--interval 300] [--until SECONDS] [--seed 0]
[--profile-window FROM TO --profile-out FILE]``.  Prints one JSON line: the
run's numbers (scheduled fraction, pending percentiles, utilisation, attempts, virtual end),
``wall_seconds``, ``cpu_seconds`` (steadier on a shared machine) and ``peak_rss_mb`` of this process.  Numbers are for reading, never asserted.

``--profile-window FROM TO`` runs cProfile only while the simulation's clock is in ``[FROM, TO)``
(switched as the clock moves on, ``Simulation.on_clock``) and writes its stats to
``--profile-out`` (``pstats`` format); the JSON line then also has ``window``: the CPU seconds,
attempts, failed attempts, and the peak RSS, pods held and pods pending at both ends of the window (the stats are written as the
window closes, so they can be read while the run goes on).
"""

import argparse
import cProfile
import json
import resource
import sys
import time


def _rss_mb() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round(usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


class ProfileWindow:
    """cProfile and a few counts while the simulation's clock is in ``[start, end)``.

    >>> w = ProfileWindow(10.0, 20.0)
    >>> w.clock(5.0); w.on, w.clock(10.0), w.on
    (False, None, True)
    >>> w.attempted("default/a"); w.result(type("R", (), {"node": None})()); w.clock(20.0); w.on
    False
    >>> w.summary()["attempts"], w.summary()["failed"]
    (1, 1)
    """

    def __init__(self, start: float, end: float, out: str | None = None):
        self.start, self.end, self.out = start, end, out
        self.profile = cProfile.Profile()
        self.on = self.done = False
        self.attempts = self.failed = 0
        self.marks: dict[str, dict] = {}
        self.sim = None

    def _mark(self, name: str, at: float) -> None:
        self.marks[name] = {"virtual": at, "cpu": time.process_time(), "peak_rss_mb": _rss_mb()}
        if self.sim is not None:  # what memory may grow with: the pods held, those pending
            self.marks[name].update(pods=len(self.sim.cluster.pods),
                                    pending=sum(self.sim.queue.pending_counts().values()))

    def clock(self, now: float) -> None:
        if not self.on and not self.done and self.start <= now < self.end:
            self._mark("from", now)
            self.on = True
            self.profile.enable()
        elif self.on and now >= self.end:
            self.profile.disable()
            self.on, self.done = False, True
            self._mark("to", now)
            if self.out:  # readable while the run goes on
                self.profile.dump_stats(self.out)

    def attempted(self, key: str) -> None:
        if self.on:
            self.attempts += 1

    def result(self, result) -> None:
        if self.on and result.node is None:
            self.failed += 1

    def attach(self, sim) -> None:
        self.sim = sim
        sim.on_clock = self.clock
        sim.loop.on_attempt.append(self.attempted)
        sim.scheduler.on_result.append(self.result)

    def summary(self) -> dict:
        if self.on:  # the run ended inside the window
            self.profile.disable()
            self.on, self.done = False, True
            self._mark("to", float("nan"))
            if self.out:
                self.profile.dump_stats(self.out)
        out: dict = {"attempts": self.attempts, "failed": self.failed, **self.marks}
        if "from" in self.marks and "to" in self.marks:
            out["cpu_seconds"] = round(self.marks["to"]["cpu"] - self.marks["from"]["cpu"], 1)
        return out


def main(argv=None) -> int:
    from kschedlab.research import Run, Variant, Workload, execute

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--arrival-rate", type=float, default=2.0, help="jobs per second of virtual time")
    parser.add_argument("--interval", type=float, default=300.0, help="seconds per utilisation row")
    parser.add_argument("--until", type=float, help="stop at this virtual time (default: when all is done)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", action="store_true", help="a bar of virtual seconds on stderr")
    parser.add_argument("--profile-window", type=float, nargs=2, metavar=("FROM", "TO"),
                        help="cProfile only while the virtual clock is in [FROM, TO)")
    parser.add_argument("--profile-out", default="trace_replay.prof", help="where the window's stats go")
    args = parser.parse_args(argv)
    window = ProfileWindow(*args.profile_window, args.profile_out) if args.profile_window else None
    workload = Workload(f"pai-{args.pods}", generate={"pods": args.pods, "arrival_rate": args.arrival_rate},
                        nodes={"count": args.nodes}, until=args.until, interval=args.interval)
    start = time.perf_counter()
    row = execute(Run("default", None, Variant("baseline"), workload, seed=args.seed), progress=args.progress,
                  prepare=window.attach if window else None)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    out = {k: v for k, v in row.items() if not isinstance(v, list)}
    out.update({"nodes": args.nodes, "arrival_rate": args.arrival_rate, "total_wall_seconds": round(wall, 1),
                "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
                "peak_rss_mb": round(rss, 1), "utilization_rows": len(row["time"])})
    if window is not None:
        out["window"] = window.summary()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
