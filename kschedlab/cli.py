"""The ``kschedlab`` command.

``demo``         schedule the embedded default scenario, explain every pod, write an HTML report
``schedule``     schedule the pending pods of manifest files and report each pod
``conformance``  run conformance case files (``N passed, N failed, K expected failures``)
``bench``        every scheduler_perf shape in one table (``--shapes``, ``--scale``), or one workload in full
``simulate``     run a scenario (cluster + KubeSchedulerConfiguration + Simulation timeline) on a virtual clock
``sweep``        run a Sweep (configurations x plugin variants x workloads x seeds) on Dask, results in parquet
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import yaml

from kschedlab.features import FeatureGateError, FeatureGates

DESCRIPTION = "Kubernetes scheduling, step by step."


def _version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kschedlab")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seconds(text: str) -> float:
    """An argparse type: a finite, non-negative number of seconds (``inf``, ``nan`` and ``-1``
    are refused: a run must end).

    >>> _seconds("90")
    90.0
    >>> _seconds("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: Invalid value: inf: must be a finite number of seconds, greater than or equal to 0
    """
    from kschedlab.api.simulation import finite_seconds

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    try:
        return finite_seconds(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _plugin_registry(text: str) -> dict:
    """An argparse type: ``MODULE:ATTRIBUTE``, an importable module the user names and a
    mapping in it of plugin name -> plugin class (kube-scheduler's out-of-tree plugins, which a
    build adds with ``app.WithPlugin``; the input YAML still only names plugins, never code).

    >>> sorted(_plugin_registry("kschedlab.research.fgd.plugins:REGISTRY"))[:2]
    ['BestFitScore', 'DotProductScore']
    >>> _plugin_registry("kschedlab.research.fgd.plugins:NOPE")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: module 'kschedlab.research.fgd.plugins' has no attribute 'NOPE'
    """
    from kschedlab.framework.out_of_tree import import_registry

    try:
        return import_registry(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _plugin_name(text: str) -> str:
    """An argparse type: ``MODULE:ATTRIBUTE`` checked as :func:`_plugin_registry` checks it,
    kept as text for the places that import it again by name (a sweep's Dask workers)."""
    _plugin_registry(text)
    return text


def _out_of_tree(registries: list[dict] | None) -> dict | None:
    """The ``--plugins`` registries merged, refused as kube-scheduler refuses an out-of-tree
    plugin whose name is taken (``Registry.Merge``: ``a plugin named X already exists``)."""
    if not registries:
        return None
    from kschedlab.framework.out_of_tree import merge_registries
    from kschedlab.framework.profile import ProfileError

    try:
        return merge_registries(registries)
    except ProfileError as err:
        raise ProfileError(f"--plugins: {err}") from None


def _gates(text: str | None) -> FeatureGates:
    return FeatureGates(FeatureGates.parse_flag(text) if text else {})


def _load_cluster(paths: list[str], config_path: str | None, seed: int, flag: str | None = None,
                  strict: bool = False):
    """Load the files once and build the cluster as :func:`kschedlab.controllers.manifests.load_manifests`
    does (expand workloads, admit), with the gates of a Simulation among them overridden by
    ``--feature-gates`` (kinds behind gates are served by them). Returns (cluster, config, gates);
    a KubeSchedulerConfiguration among the files (or in ``config_path``) is the config."""
    from kschedlab.api.config import KubeSchedulerConfiguration
    from kschedlab.api.loader import load
    from kschedlab.api.simulation import Simulation
    from kschedlab.cluster import Cluster
    from kschedlab.controllers.manifests import create

    objects = load(paths, strict=strict)
    scenario_gates: dict[str, bool] = {}
    for obj in objects:
        if isinstance(obj, Simulation):
            scenario_gates.update(obj.spec.feature_gates)
    gates = FeatureGates({**scenario_gates, **(FeatureGates.parse_flag(flag) if flag else {})})
    configs = [o for o in objects if isinstance(o, KubeSchedulerConfiguration)]
    if config_path:
        configs = [o for o in load(config_path, strict=strict) if isinstance(o, KubeSchedulerConfiguration)] or configs
    if len(configs) > 1:
        raise SystemExit("error: more than one KubeSchedulerConfiguration given")
    rest = [o for o in objects if not isinstance(o, (KubeSchedulerConfiguration, Simulation))]
    cluster = Cluster(create(rest, feature_gates=dict(gates.overrides), seed=seed, strict=strict))
    for refusal in cluster.refused:  # kubectl apply -f prints each refusal of its objects and goes on
        if refusal.controller is None:
            print(refusal.kubectl(), file=sys.stderr)
    return cluster, (configs[0] if configs else None), gates


def _print_table(run, explain: bool, out) -> None:
    """The run as a table (every pod: STATUS, NODE, NOMINATED NODE, ATTEMPTS, MESSAGE); with
    ``explain`` the per-node table of every attempt of every pod, printed whole."""
    from kschedlab.viz.run_text import explain_text, run_table

    print(run_table(run), file=out)
    if not explain:
        return
    total: dict[str, int] = {}
    for r in run.history:
        total[r.pod] = total.get(r.pod, 0) + (r.trace is not None)
    seen: dict[str, int] = {}
    for r in run.history:
        if r.trace is None:
            continue
        seen[r.pod] = seen.get(r.pod, 0) + 1
        if r.trace.filter is None and r.trace.score is None:
            continue
        attempt = f" (attempt {seen[r.pod]} of {total[r.pod]})" if total[r.pod] > 1 else ""
        print(f"\n{r.pod}: {r.node or 'unschedulable'}{attempt}", file=out)
        print(explain_text(r), file=out)
        record = r.trace.preemption
        if record is not None and record.victims:
            node = record.selected.name if record.selected is not None else "-"
            print(f"PostFilter: nominated {node}, preempting {', '.join(record.victims)}", file=out)


def pod_group_line(group: dict) -> str:
    """One PodGroup / CompositePodGroup of ``describe_pod_groups`` as a line of the table output.

    >>> pod_group_line({"kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ns"},
    ...     "status": {"conditions": [{"type": "PodGroupInitiallyScheduled", "status": "False",
    ...     "reason": "Unschedulable", "message": "minCount (3) cannot be satisfied"}]}})
    'podgroup ns/pg: PodGroupInitiallyScheduled=False (Unschedulable: minCount (3) cannot be satisfied)'
    """
    meta = group.get("metadata") or {}
    name = f"{meta['namespace']}/{meta.get('name', '')}" if meta.get("namespace") else meta.get("name", "")
    conditions = []
    for c in (group.get("status") or {}).get("conditions") or []:
        why = ": ".join(x for x in (c.get("reason"), c.get("message")) if x)
        conditions.append(f"{c.get('type')}={c.get('status')}" + (f" ({why})" if why else ""))
    return f"{group.get('kind', '').lower()} {name}: {', '.join(conditions) or 'no conditions'}"


def _schedule(args, paths: list[str], title: str | None = None) -> int:
    from kschedlab.framework.podgroups import describe_pod_groups
    from kschedlab.scheduler import Scheduler

    out = sys.stdout
    cluster, config, gates = _load_cluster(paths, args.config, args.seed, args.feature_gates,
                                           strict=getattr(args, "strict", False))
    if any(p.spec.resource_claims for p in cluster.pods.values()):
        from kschedlab.dra.resourceclaim_controller import ResourceClaimController

        # kube-controller-manager's resourceclaim controller creates the pods' template claims first
        for error in ResourceClaimController(cluster, seed=args.seed).sync():
            print(f"resourceclaim controller: pod {error.pod}: {error.message}", file=sys.stderr)
    if cluster.objects.get("PersistentVolumeClaim") or cluster.objects.get("PersistentVolume"):
        from kschedlab.storage.pv_controller import PersistentVolumeController

        # kube-controller-manager's PV controller makes new volumes Available and binds the claims
        # that do not wait for a consumer
        PersistentVolumeController(cluster).sync()
    scheduler = Scheduler(cluster, config, gates=gates, seed=args.seed, registry=_out_of_tree(args.plugins))
    run = scheduler.run(once=args.once, max_attempts=args.max_attempts)
    doc = run.to_dict()
    from kschedlab.controllers.workloads import running_and_ready

    placed = {p.name for p in run.pods if p.node and p.pod_status == "Running"}
    not_started = _not_started(cluster, lambda pod: pod.key in placed or running_and_ready(pod))
    if not_started:
        doc["notStarted"] = not_started
    if cluster.refused or cluster.events:
        doc["refused"] = [r.to_dict() for r in cluster.refused]
        doc["events"] = [e.to_dict() for e in cluster.events]
    claims = volume_claims = None
    if cluster.objects.get("ResourceClaim"):
        from kschedlab.dra.resourceclaim_controller import describe_claims

        claims = doc["resourceClaims"] = describe_claims(cluster)
    groups = describe_pod_groups(cluster)
    if groups:
        doc["podGroups"] = groups
    if cluster.objects.get("PersistentVolumeClaim"):
        from kschedlab.storage.pv_controller import describe_volume_claims

        volume_claims = doc["persistentVolumeClaims"] = describe_volume_claims(cluster)
    if args.output == "json":
        json.dump(doc, out, indent=2)
        print(file=out)
    elif args.output == "yaml":
        yaml.safe_dump(doc, out, sort_keys=False)
    else:
        _print_table(run, explain=args.explain, out=out)
        for c in claims or []:
            devices = ", ".join(c["devices"]) if c["devices"] else "not allocated"
            users = f"  reserved for {', '.join(c['reservedFor'])}" if c["reservedFor"] else ""
            print(f"claim {c['claim']}: {devices}{users}", file=out)
        for c in volume_claims or []:
            bound = f"bound to {c['volume']} ({c['capacity']})" if c["volume"] else c["status"]
            sc = c["storageClass"] or '""'
            print(f"persistentvolumeclaim {c['claim']}: {bound}, class {sc}", file=out)
        for g in groups:
            print(pod_group_line(g), file=out)
        for entry in not_started:
            print(f"{entry['object']}: {entry['reason']}", file=out)
        for r in cluster.refused:
            by = f" (created by {r.controller})" if r.controller else ""
            print(f"refused by the API server: {r.obj.kind} {r.key}{by}: {r.message}", file=out)
        for e in cluster.events:
            print(f"event: {e}", file=out)
    if args.report:
        from pathlib import Path

        from kschedlab.viz.report import write_report

        path = write_report(args.report, cluster, run, title=title or ", ".join(Path(p).name for p in paths))
        print(f"report written to {path}", file=sys.stderr)
    return _exit_status(cluster)


def _exit_status(cluster) -> int:
    """``kubectl apply``'s: 1 when an object of the files was refused (the rest was applied), 0
    otherwise; a refused pod of a controller is the controller's event, not kubectl's error."""
    return 1 if any(r.controller is None for r in cluster.refused) else 0


def _not_started(cluster, ready) -> list[dict]:
    """What no scheduling attempt shows: suspended Jobs (no pods created), StatefulSets whose next
    pod waits for the one before it (``ready(pod)``: whether the run took the pod as Running and
    Ready) and pods bound by ``spec.nodeName`` whose ResourceClaims keep the kubelet from starting them."""
    from kschedlab.controllers.statefulset import waiting_sets

    out = []
    for job in cluster.objects.get("Job", {}).values():
        if job.spec.suspend:
            out.append({"object": f"Job {job.key}", "node": None,
                        "reason": "the Job is suspended (spec.suspend: true; condition Suspended, reason JobSuspended): "
                                  "the Job controller creates no pods until it is resumed"})
    for sts, why in waiting_sets(cluster, ready):
        out.append({"object": sts, "node": None, "reason": why + " (podManagementPolicy OrderedReady)"})
    if cluster.objects.get("ResourceClaim") is not None or any(p.spec.resource_claims for p in cluster.pods.values()):
        from kschedlab.kubelet.dra_prepare import unprepared_claims

        for pod, node, why in unprepared_claims(cluster):
            out.append({"object": f"Pod {pod} (Pending on {node})", "node": node, "reason": why})
    return out


def cmd_demo(args) -> int:
    from kschedlab.scenarios import path

    args.config, args.explain = None, True
    return _schedule(args, [path("default")], title="kschedlab demo: the built-in scenario default.yaml")


def cmd_schedule(args) -> int:
    return _schedule(args, args.files)


def cmd_conformance(args) -> int:
    from kschedlab.conformance import expected_failures, run_paths

    files = args.expected_failures if args.expected_failures is not None else expected_failures.find(args.paths)
    report = run_paths(args.paths, expected=expected_failures.load_all(files))
    if args.output == "json":  # stdout is the JSON document alone; the closing line goes to stderr
        json.dump(report.to_dict(), sys.stdout, indent=2)
        print()
        print(report.summary(), file=sys.stderr)
        return 0 if report.failed == 0 else 1
    for r in report.results:
        if r.outcome == "failed":
            print(f"FAIL {r.id} ({r.file})")
            for d in r.diffs:
                print(f"    {d}")
        elif r.outcome == "unexpectedly passed":
            print(f"XPASS {r.id} ({r.file}): unexpectedly passed: remove it from the list "
                  f"({', '.join(str(f) for f in files)})")
        elif r.outcome == "expected failure":
            print(f"xfail {r.id}: {r.expected_failure}")
    print(report.summary())
    return 0 if report.failed == 0 else 1


def cmd_bench(args) -> int:
    from kschedlab.scheduler_perf import BENCH_SHAPES, bench_table, run_bench, run_workload
    from kschedlab.scheduler_perf.workloads import WORKLOADS

    gates = _gates(args.feature_gates)
    if (args.plugins or args.config) and args.workload not in WORKLOADS:
        print("error: --plugins and --config are measured on one workload of "
              f"{', '.join(WORKLOADS)}: name it (kschedlab bench SchedulingBasic --config FILE --plugins "
              "MODULE:REGISTRY)", file=sys.stderr)
        return 2
    if args.workload is None or args.shapes is not None:
        if args.workload is not None:
            print("error: give a workload or --shapes, not both", file=sys.stderr)
            return 2
        shapes = [n.strip() for n in (args.shapes or "").split(",") if n.strip()] or list(BENCH_SHAPES)
        unknown = [n for n in shapes if n not in BENCH_SHAPES]
        if unknown or not args.scale > 0:
            what = (f"--shapes: Unsupported value: {', '.join(unknown)}: supported values: {', '.join(BENCH_SHAPES)}"
                    if unknown else f"--scale: Invalid value: {args.scale}: must be greater than 0")
            print(f"error: {what}", file=sys.stderr)
            return 2
        live = args.output != "json" and sys.stderr.isatty()
        rows = run_bench(shapes, args.scale, keep_traces=args.keep_traces, seed=args.seed,
                         gates=args.feature_gates and gates,
                         on_row=(lambda r: print(f"{r['shape']}: {r['pods_per_second']} pods/s", file=sys.stderr))
                         if live else None)
        return _print_bench(args.output, rows, bench_table)
    if args.workload not in BENCH_SHAPES:
        print(f"error: unknown workload {args.workload!r}: supported values: {', '.join(BENCH_SHAPES)}",
              file=sys.stderr)
        return 2
    config = None
    if args.config is not None:
        from kschedlab.api.config import KubeSchedulerConfiguration
        from kschedlab.api.loader import load

        found = [o for o in load(args.config) if isinstance(o, KubeSchedulerConfiguration)]
        if len(found) != 1:
            print(f"error: --config: {args.config}: expected one KubeSchedulerConfiguration, found {len(found)}",
                  file=sys.stderr)
            return 2
        config = found[0]
    result = run_workload(args.workload, nodes=args.nodes, init_pods=args.init_pods,
                          measure_pods=args.pods, keep_traces=args.keep_traces, seed=args.seed,
                          gates=gates, config=config, registry=_out_of_tree(args.plugins),
                          progress=args.output != "json" and sys.stderr.isatty())
    return _print_bench(args.output, result, _bench_table)


def _print_bench(output: str, result, table) -> int:
    """Print a bench result as JSON (``-o json``) or as ``table(result)``."""
    if output == "json":
        json.dump(result, sys.stdout)
        print()
    else:
        print(table(result))
    return 0


def _bench_table(result: dict) -> str:
    """``kschedlab bench``'s table: one ``key: value`` line each, memory in Ki/Mi/Gi, ``-`` for
    a missing value.

    >>> print(_bench_table({"pods": 40, "peak_rss_mb": 55.7, "upstream_threshold": None}))
                  pods: 40
           peak memory: 55.7Mi
    upstream_threshold: -
    """
    from kschedlab.viz.common import human

    lines = []
    rows = []
    for key, value in result.items():
        if key == "peak_rss_mb" and value is not None:
            key, value = "peak memory", human(round(float(value) * 2**20), "memory")
        elif value is None or (isinstance(value, float) and value != value):
            value = "-"
        rows.append((key, value))
    width = max((len(k) for k, _ in rows), default=0)
    for key, value in rows:
        lines.append(f"{key:>{width}}: {value}")
    return "\n".join(lines)


def cmd_simulate(args) -> int:
    from kschedlab.controllers.job import jobs_summary
    from kschedlab.controllers.workloads import running_and_ready
    from kschedlab.sim.quiescence import stop_sentence
    from kschedlab.sim.scenario import from_files

    if args.keep_traces < 0:
        print(f"error: --keep-traces: Invalid value: {args.keep_traces}: must be greater than or equal to 0",
              file=sys.stderr)
        return 2
    sim, until = from_files(*args.files, gates=_gates(args.feature_gates), seed=args.seed, strict=args.strict,
                            keep_traces=args.keep_traces, registry=_out_of_tree(args.plugins),
                            keep_history=False)  # neither output shows the queue's moves
    for refusal in sim.cluster.refused:  # as kubectl apply -f: reported, left out, the rest goes on
        if refusal.controller is None:
            print(refusal.kubectl(), file=sys.stderr)
    for event in sim.cluster.events:
        print(f"event: {event}", file=sys.stderr)
    result = sim.run(until=args.until if args.until is not None else until,
                     progress=args.output == "table" and sys.stderr.isatty())
    taints = sim.taint_manager.events_frame()
    not_started = _not_started(sim.cluster, sim.statefulsets.ready if sim.statefulsets else running_and_ready)
    jobs = jobs_summary(sim.cluster)
    if args.output == "json":
        out = {"endTime": result.end_time, "pods": json.loads(result.pods.to_json(orient="records")),
               "queue": json.loads(result.queue.to_json(orient="records"))}
        if len(taints):
            out["taintManager"] = json.loads(taints.to_json(orient="records"))
        if sim.kubelet is not None:
            from kschedlab.sim.kubelet import report

            out["kubelet"] = report(sim.kubelet)
        out.update(sim.dra.report())
        out.update(sim.storage.report())
        out.update({"stopReason": result.stop_reason, "horizon": result.horizon,
                    "quiescentAt": result.quiescent_at,
                    "pending": json.loads(result.pending.to_json(orient="records"))})
        if not_started:
            out["notStarted"] = not_started
        if jobs:
            out["jobs"] = jobs
        json.dump(out, sys.stdout, indent=2)
        print()
    else:
        from kschedlab.viz.common import people_table

        print(people_table(result.pods) if len(result.pods) else
              "no pod went through the scheduler (every pod was bound in the manifests)")
        if len(taints):
            print("\ntaint manager:\n" + people_table(taints))
        for title, frame in (("device taint eviction", sim.dra.evictions_frame()),
                             ("DeviceTaintRules", sim.dra.rules_frame()),
                             ("PreBind waits for binding conditions", sim.dra.binding_frame())):
            if len(frame):
                print(f"\n{title}:\n" + people_table(frame.dropna(axis=1, how="all")))
        if sim.kubelet is not None:
            from kschedlab.sim.kubelet import report_text

            print("\n" + report_text(sim.kubelet))
        if len(result.pending):
            print(f"\npending pods ({len(result.pending)}):")
            for row in result.pending.itertuples(index=False):
                print(f"  {row.pod}  queue={row.queue}  attempts={row.attempts}\n    {row.message}")
        for entry in not_started:
            print(f"{entry['object']}: {entry['reason']}")
        for job in jobs:
            done = f" at {job['completionTime']:g} s" if job["completionTime"] is not None else ""
            print(f"Job {job['job']}: {job['completions']} completions, {job['active']} active, {job['failed']} failed, "
                  f"{job['state']}{done}")
        print("\n" + stop_sentence(result))
        print(f"simulated {result.end_time:g} s")
    return _exit_status(sim.cluster)


def cmd_sweep(args) -> int:
    from kschedlab.research.sweep import describe, sweep

    try:
        results = sweep(args.spec, output=args.output, address=args.address, workers=args.workers,
                        progress=sys.stderr.isatty() and not args.no_progress, plugins=args.plugins or ())
    except RuntimeError as err:  # a run failed; the runs that finished are kept for the next start
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(describe(results))
    print(f"{len(results)} runs ({len(results.attrs['computed'])} run now), results in "
          f"{results.attrs['output']}/results.parquet")
    return 0


def cmd_packing(args) -> int:
    import json

    from kschedlab.research.fgd.experiment import run
    from kschedlab.research.fgd.faithful import run_scheduler
    from kschedlab.research.fgd.openb import read_nodes, read_pods

    runner = run_scheduler if args.engine == "scheduler" else run
    try:
        nodes, pods = read_nodes(args.nodes), read_pods(args.pods)
        result = runner(nodes, pods, args.policy, args.seed, tie_break=args.tie_break, ratio=args.inflate)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    doc = result.as_json()
    if args.output == "json":
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{doc['policy']} seed {doc['seed']} (tie-break {doc['tieBreak']}): {doc['pods']} pods on "
          f"{len(nodes)} nodes, {doc['gpus']} GPUs; {doc['failed']} pods found no node; {doc['seconds']:g} s")
    print("arrived %  unallocated GPU %  fragment %")
    for pct in range(10, 131, 10):
        key = str(pct)
        if key in doc["unallocated"]:
            # the fragment is measured when the arrivals first reach a whole percent; the last pods may stop
            # short of it (the unallocated share is read from the pods within one point): "-"
            frag = doc["fragmentation"].get(key)
            print(f"{pct:9d}  {doc['unallocated'][key]:17.2f}  {'-' if frag is None else f'{frag:.2f}':>10}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from kschedlab.scheduler.scheduling_loop import DEFAULT_MAX_ATTEMPTS

    parser = argparse.ArgumentParser(prog="kschedlab", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"kschedlab {_version()}")
    sub = parser.add_subparsers(title="commands", dest="command", required=True, metavar="COMMAND")

    def plugins_option(p):
        p.add_argument("--plugins", type=_plugin_registry, action="append", metavar="MODULE:REGISTRY",
                       help="add out-of-tree plugins, as a kube-scheduler built with them: REGISTRY is a mapping "
                            "of plugin name to plugin class in the importable MODULE (e.g. "
                            "kschedlab.research.fgd.plugins:REGISTRY); the configuration then enables them by name. "
                            "Repeatable; a name already taken is refused")

    def scheduling_options(p):
        plugins_option(p)
        p.add_argument("--feature-gates", metavar="Name=true,...", help="override feature gates")
        p.add_argument("--seed", type=int, default=0, help="seed for tie-breaks and generated names")
        p.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
        p.add_argument("--report", metavar="HTML", help="also write an HTML report with figures")
        p.add_argument("--strict", action="store_true",
                       help="refuse the whole input at an object of a kind the scheduler does not use or an object "
                            "the API server refuses (default: skip the first with a warning; report the second, as "
                            "kubectl apply does, and go on)")
        p.add_argument("--once", action="store_true",
                       help="try each pending pod once, in queue order, and stop (no retries)")
        p.add_argument("--max-attempts", type=_positive_int, default=DEFAULT_MAX_ATTEMPTS, metavar="N",
                       help=f"most scheduling attempts per pod before the run gives up on it "
                            f"(default {DEFAULT_MAX_ATTEMPTS}); the output says when it is reached")

    demo = sub.add_parser("demo", help="schedule the embedded default scenario, explain every pod, write an HTML report")
    scheduling_options(demo)
    demo.set_defaults(func=cmd_demo, report="kschedlab-report.html")

    sched = sub.add_parser("schedule", help="schedule the pending pods of manifest files and report what became of each pod")
    sched.add_argument("files", nargs="+", help="YAML/JSON files or directories")
    sched.add_argument("--config", help="a KubeSchedulerConfiguration file")
    sched.add_argument("--explain", action="store_true", help="print the per-node table of each pod")
    scheduling_options(sched)
    sched.set_defaults(func=cmd_schedule)

    conf = sub.add_parser("conformance", help="run conformance case files (N passed, N failed)")
    conf.add_argument("paths", nargs="+")
    conf.add_argument("-o", "--output", choices=("text", "json"), default="text")
    conf.add_argument("--expected-failures", metavar="FILE", action="append",
                      help="expected-failures YAML ({id, reason} list); default: the EXPECTED-FAILURES.yaml "
                           "nearest each path")
    conf.set_defaults(func=cmd_conformance)

    bench = sub.add_parser("bench", help="every scheduler_perf shape in one table (--shapes, --scale), or one workload")
    bench.add_argument("workload", nargs="?", default=None,
                       help="one workload, reported in full (default: every shape, one table)")
    bench.add_argument("--shapes", metavar="A,B,...", help="run only these shapes (table)")
    bench.add_argument("--scale", type=float, default=1.0,
                       help="shapes at this fraction of upstream's sizes (table; e.g. 0.01)")
    bench.add_argument("--nodes", type=int)
    bench.add_argument("--init-pods", type=int)
    bench.add_argument("--pods", type=int, help="measured pods")
    bench.add_argument("--keep-traces", type=int, default=1000, help="full traces kept (most recent)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--feature-gates", metavar="Name=true,...", help="override feature gates")
    bench.add_argument("--config", metavar="FILE",
                       help="a KubeSchedulerConfiguration file the workload is scheduled with (one workload of "
                            "misc, affinity, topology_spreading or default_preemption)")
    plugins_option(bench)
    bench.add_argument("-o", "--output", choices=("table", "json"), default="table")
    bench.set_defaults(func=cmd_bench)
    simulate = sub.add_parser("simulate", help="run a scenario (cluster + KubeSchedulerConfiguration + Simulation timeline) "
                                             "on a virtual clock")
    simulate.add_argument("files", nargs="+", help="scenario YAML files or directories")
    simulate.add_argument("--until", type=_seconds,
                          help="stop at this virtual time (seconds); default: the Simulation's spec.until, else "
                               "when nothing can change any more or at the 24 h (86400 s) horizon")
    simulate.add_argument("--keep-traces", type=int, default=200, metavar="N",
                          help="full per-node traces kept for the N most recent attempts (default 200)")
    plugins_option(simulate)
    simulate.add_argument("--feature-gates", metavar="Name=true,...")
    simulate.add_argument("--seed", type=int)
    simulate.add_argument("-o", "--output", choices=("table", "json"), default="table")
    simulate.add_argument("--strict", action="store_true",
                          help="refuse the whole input at an object of a kind the scheduler does not use or an object "
                            "the API server refuses (default: skip the first with a warning; report the second, as "
                            "kubectl apply does, and go on)")
    simulate.set_defaults(func=cmd_simulate)
    sweep = sub.add_parser("sweep", help="run a Sweep file on Dask (a LocalCluster unless --address)")
    sweep.add_argument("spec", help="a kschedlab.io/v1alpha1 Sweep YAML file")
    sweep.add_argument("--output", help="results folder (default: the Sweep's spec.output)")
    sweep.add_argument("--address", help="a Dask scheduler address (default: a LocalCluster of --workers processes)")
    sweep.add_argument("--workers", type=_positive_int, default=2, help="LocalCluster worker processes (default 2)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    sweep.add_argument("--plugins", type=_plugin_name, action="append", metavar="MODULE:REGISTRY",
                       help="add out-of-tree plugins to every run, as for simulate; the Sweep's configurations "
                            "enable them by name. Each Dask worker imports MODULE by name (a LocalCluster's workers "
                            "have this command's sys.path; a remote cluster needs the module installed). Repeatable")
    sweep.set_defaults(func=cmd_sweep)
    from kschedlab.research.fgd.policies import POLICIES

    packing = sub.add_parser("packing", help="the FGD paper's GPU-sharing experiment on an openb-schema trace")
    packing.add_argument("--nodes", required=True, metavar="NODES.csv", help="node list (openb_node_list_*.csv)")
    packing.add_argument("--pods", required=True, metavar="PODS.csv", help="pod list (openb_pod_list_*.csv)")
    packing.add_argument("--policy", required=True, choices=POLICIES)
    packing.add_argument("--seed", type=int, default=42, help="shuffle, inflation and node-order seed (default 42)")
    packing.add_argument("--tie-break", choices=("name", "random"), default="name",
                         help="equal best scores: the smallest node name, as the paper's simulator (default), "
                              "or upstream's uniform draw")
    packing.add_argument("--inflate", type=float, default=1.3,
                         help="add sampled copies of pods until they ask for this share of the GPUs (default 1.3)")
    packing.add_argument("--engine", choices=("fast", "scheduler"), default="fast",
                         help="the vectorized engine (default) or kschedlab's Scheduler with the plugins (slow)")
    packing.add_argument("-o", "--output", choices=("table", "json"), default="table")
    packing.set_defaults(func=cmd_packing)
    return parser


def main(argv: list[str] | None = None) -> int:
    from kschedlab.api.errors import ManifestError
    from kschedlab.api.kinds import SkippedKindsWarning
    from kschedlab.framework.interface import ArgsError
    from kschedlab.framework.profile import ProfileError
    from kschedlab.scheduler import ConfigError

    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("always", SkippedKindsWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, SkippedKindsWarning) or getattr(category, "one_line", False):
                print(f"warning: {message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        try:
            code = args.func(args)
            sys.stdout.flush()
            return code
        except (ManifestError, ArgsError, ProfileError, ConfigError, FeatureGateError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            # Ctrl-C: one line, no traceback; files are written whole or not at all
            print(f"kschedlab {args.command}: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # the reader went away (``kschedlab ... | head``): stop quietly, as other tools do
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            return 141


if __name__ == "__main__":
    sys.exit(main())
