"""Small checked exercises for the course notebooks.

An :class:`Exercise` holds a question, a way to check an answer, hints and a solution. In a
notebook, one cell shows the question, the student writes the answer into a variable and a
check cell calls :meth:`Exercise.check`, which prints a friendly verdict and returns True or
False. Hints come one at a time with :meth:`Exercise.hint`; the solution only when
:meth:`Exercise.solution` is called.

The placeholder ``...`` (or ``None``) means "not answered yet": checking it prints a gentle
reminder and returns False without raising, so a notebook with unanswered exercises still
runs top to bottom (CI runs every notebook with nbval).

Nothing is stored outside the object: a fresh kernel starts with no hints shown, and the
same answer always gets the same verdict.

>>> ex = Exercise("How many millicores does the scheduler look for?", answer=2250, unit="millicores",
...               hints=["Add the containers' requests.", "Then add the RuntimeClass overhead."],
...               solution="500m + 1500m + 250m = 2250m", explanation="The overhead is part of the request.")
>>> ex.check(...)
Not answered yet: replace ... with your answer and run the cell again.
False
>>> ex.check(2000)
✗ Not quite: 2000 is not the expected value. Try again, or ask for a hint with .hint().
False
>>> ex.hint()
Hint 1/2: Add the containers' requests.
>>> ex.hint()
Hint 2/2: Then add the RuntimeClass overhead.
>>> ex.hint()
No more hints: .solution() shows the worked answer.
>>> ex.check("2250")
✓ Correct: 2250 millicores. The overhead is part of the request.
True
>>> ex.solution()
Solution: 500m + 1500m + 250m = 2250m
"""

from __future__ import annotations

import base64
import hashlib
import math
import textwrap
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from kschedlab.api.quantity import Quantity
from kschedlab.api.safe_yaml import safe_load, safe_load_all

__all__ = [
    "Exercise",
    "NOT_ANSWERED",
    "is_unanswered",
    "say",
    "WIDTH",
    "number_equals",
    "quantity_equals",
    "text_equals",
    "one_of",
    "answer_key",
    "answer_digest",
    "digest_equals",
    "plugin_task",
    "hint_task",
    "placement_task",
    "policy_task",
    "pre_enqueue_task",
    "function_task",
    "selector_task",
    "sweep_task",
    "SWEEP_METRICS",
    "PredictExercise",
    "exercise",
    "BOOK",
    "DATASETS",
]

#: where the course's exercises live, one YAML file per notebook (answers only as digests)
BOOK = Path(__file__).resolve().parent / "exercise_book"
#: the manifests the coding tasks run on
DATASETS = Path(__file__).resolve().parents[1] / "datasets"

#: what a student's answer variable holds before they answer
NOT_ANSWERED = ...

#: the width feedback lines are wrapped to: JupyterLab breaks a longer output line inside a word
WIDTH = 88


def say(*texts: str) -> None:
    """Print ``texts``, each line wrapped at spaces to :data:`WIDTH` columns, the continuation indented
    two spaces more than the line it continues.

    >>> say("✗ The change asked is not made yet: " + "Pod default/web spec.containers[0].resources.requests.cpu "
    ...     "is '1'; the question asks for '3'.", "  default/web → large")
    ✗ The change asked is not made yet: Pod default/web
      spec.containers[0].resources.requests.cpu is '1'; the question asks for '3'.
      default/web → large
    """
    for text in texts:
        for line in text.split("\n"):
            indent = " " * (len(line) - len(line.lstrip(" ")))
            print(textwrap.fill(line, WIDTH, subsequent_indent=indent + "  ",
                                break_long_words=False, break_on_hyphens=False) if line.strip() else line)


def is_unanswered(answer: Any) -> bool:
    """Whether ``answer`` is still the placeholder (``...`` or ``None``).

    >>> is_unanswered(...), is_unanswered(None), is_unanswered(0)
    (True, True, False)
    """
    return answer is ... or answer is None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace("_", ""))
        except ValueError:
            return None
    return None


def number_equals(expected: float, *, rel: float = 0.0, abs_tol: float = 0.0) -> Callable[[Any], tuple[bool, str]]:
    """A check for a number (ints, floats or numeric strings), with optional tolerance.

    >>> number_equals(0.25)(" 0.25 "), number_equals(100, rel=0.01)(100.5)[0]
    ((True, ''), True)
    >>> number_equals(3)("three")
    (False, '"three" is not a number.')
    """
    def check(answer: Any) -> tuple[bool, str]:
        got = _as_number(answer)
        if got is None:
            return False, f'"{answer}" is not a number.'
        if math.isclose(got, float(expected), rel_tol=rel, abs_tol=abs_tol):
            return True, ""
        return False, f"{answer} is not the expected value."
    return check


def quantity_equals(expected: str | int | Quantity) -> Callable[[Any], tuple[bool, str]]:
    """A check for a Kubernetes quantity: ``"320Mi"``, ``335544320`` and ``"0.3125Gi"`` are equal.

    >>> quantity_equals("320Mi")(335544320), quantity_equals("2250m")("2.25")
    ((True, ''), (True, ''))
    >>> quantity_equals("320Mi")("300Mi")
    (False, '300Mi is not the expected amount.')
    """
    want = Quantity(expected) if not isinstance(expected, Quantity) else expected

    def check(answer: Any) -> tuple[bool, str]:
        if isinstance(answer, bool) or not isinstance(answer, (str, int, Quantity)):
            return False, f"{answer!r} is not a quantity (write it like 250m, 320Mi or 2)."
        try:
            got = answer if isinstance(answer, Quantity) else Quantity(answer.strip() if isinstance(answer, str)
                                                                       else answer)
        except ValueError:
            return False, f'"{answer}" is not a quantity (write it like 250m, 320Mi or 2).'
        if got == want:
            return True, ""
        return False, f"{answer} is not the expected amount."
    return check


def _normalise(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def text_equals(*accepted: str) -> Callable[[Any], tuple[bool, str]]:
    """A check for a word or phrase; case and surrounding / repeated spaces do not matter.

    >>> text_equals("node-big")("  Node-Big "), text_equals("yes", "y")("no")
    ((True, ''), (False, '"no" is not the expected answer.'))
    """
    wanted = {_normalise(a) for a in accepted}

    def check(answer: Any) -> tuple[bool, str]:
        if _normalise(answer) in wanted:
            return True, ""
        return False, f'"{answer}" is not the expected answer.'
    return check


def one_of(choices: Sequence[str], correct: str | Iterable[str]) -> Callable[[Any], tuple[bool, str]]:
    """A multiple-choice check: the answer is one of ``choices`` (a letter, or the text).

    >>> check = one_of(["the scheduler", "the kubelet", "the API server"], "the API server")
    >>> check("c"), check("The API server"), check("a")
    ((True, ''), (True, ''), (False, '"a" is not the right choice.'))
    >>> check("d")
    (False, '"d" is not one of the choices a-c.')
    """
    letters = "abcdefghijklmnopqrstuvwxyz"[: len(choices)]
    correct_set = {correct} if isinstance(correct, str) else set(correct)
    right = {_normalise(c) for c in correct_set} | {letters[i] for i, c in enumerate(choices) if c in correct_set}

    def check(answer: Any) -> tuple[bool, str]:
        a = _normalise(answer)
        if len(a) == 1 and a not in letters:
            return False, f'"{answer}" is not one of the choices a-{letters[-1]}.'
        if a in right:
            return True, ""
        return False, f'"{answer}" is not the right choice.'
    return check


def answer_key(kind: str, answer: Any, choices: Sequence[str] = ()) -> str | None:
    """The canonical text of ``answer`` read as a ``kind`` answer, or None when it is not one.

    Kinds: ``number``, ``quantity`` (compared in nanounits), ``text`` (case and spaces do not
    matter) and ``choice`` (a letter or the text of one of ``choices``).

    >>> answer_key("number", " 2 "), answer_key("quantity", "320Mi") == answer_key("quantity", 335544320)
    ('2.0', True)
    >>> answer_key("choice", "B", ["node-a", "node-b"]), answer_key("choice", "z", ["node-a"])
    ('node-b', None)
    """
    if is_unanswered(answer):
        return None
    if kind == "number":
        got = _as_number(answer)
        return None if got is None else repr(got)
    if kind == "quantity":
        if isinstance(answer, bool) or not isinstance(answer, (str, int, Quantity)):
            return None
        try:
            q = answer if isinstance(answer, Quantity) else Quantity(answer.strip() if isinstance(answer, str)
                                                                     else answer)
        except ValueError:
            return None
        return str(q.nanos)
    if kind == "text":
        return _normalise(answer)
    if kind == "choice":
        a = _normalise(answer)
        letters = "abcdefghijklmnopqrstuvwxyz"[: len(choices)]
        if len(a) == 1 and a in letters:
            return _normalise(choices[letters.index(a)])
        return a if a in {_normalise(c) for c in choices} else None
    raise ValueError(f"unknown answer kind {kind!r}")


def answer_digest(salt: str, key: str) -> str:
    """The SHA-256 digest stored for an answer whose canonical text is ``key``.

    >>> d = answer_digest("00-tour#1", "2.0")
    >>> len(d), d == answer_digest("00-tour#1", "2.0"), d == answer_digest("00-tour#2", "2.0")
    (64, True, False)
    """
    return hashlib.sha256(f"{salt}\n{key}".encode()).hexdigest()


_WRONG = {"number": "{a} is not the expected value.", "quantity": "{a} is not the expected amount.",
          "text": '"{a}" is not the expected answer.', "choice": '"{a}" is not the right choice.'}
_UNREADABLE = {"number": '"{a}" is not a number.',
               "quantity": '"{a}" is not a quantity (write it like 250m, 320Mi or 2).',
               "text": '"{a}" is not the expected answer.',
               "choice": '"{a}" is not one of the choices.'}


def digest_equals(kind: str, digest: str, salt: str, choices: Sequence[str] = ()) -> Callable[[Any], tuple[bool, str]]:
    """A check against a stored digest: the expected answer itself is not kept anywhere.

    >>> check = digest_equals("number", answer_digest("demo#1", "4.0"), "demo#1")
    >>> check("4"), check(5), check("four")
    ((True, ''), (False, '5 is not the expected value.'), (False, '"four" is not a number.'))
    """
    def check(answer: Any) -> tuple[bool, str]:
        key = answer_key(kind, answer, choices)
        if key is None:
            return False, _UNREADABLE[kind].format(a=answer)
        if answer_digest(salt, key) == digest:
            return True, ""
        return False, _WRONG[kind].format(a=answer)
    return check


def _plugin_run(manifests: Path, pod: str, point: str, reference: str, plugin: type | None,
                plugin_config: Sequence[dict] = ()):
    """Schedule ``pod``; with ``plugin``, it replaces ``reference`` at ``point`` in the default profile
    (``plugin_config``: the profile's ``pluginConfig``, for both runs)."""
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    config, registry = None, None
    profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if plugin_config:
        profile["pluginConfig"] = list(plugin_config)
    if plugin is not None:
        entry = {"name": plugin.name, **({"weight": 1} if point == "score" else {})}
        profile["plugins"] = {point: {"disabled": [{"name": reference}], "enabled": [entry]}}
        registry = {plugin.name: plugin}
    if len(profile) > 1:
        config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                  "profiles": [profile]}
    return Scheduler(Cluster.from_manifests(manifests), config, registry=registry, seed=0).schedule_one(pod)


def _plugin_view(result, point: str, name: str) -> dict[str, Any]:
    if point == "filter":
        return {node: "rejects" if st.plugin == name else "passes"
                for node, st in result.trace.filter_statuses().items()}
    return {node: (row[name]["raw"], row[name]["normalized"]) for node, row in result.trace.scores().items()
            if name in row}


def _not_a_plugin(answer: Any, reference: str, methods: Sequence[str], shape: str) -> str | None:
    """Why ``answer`` is not a plugin class standing in for ``reference`` (one of ``methods``
    defined, a name of its own), or None; ``shape`` is what to write, named in the sentence."""
    if not isinstance(answer, type) or not any(hasattr(answer, m) for m in methods):
        return f"give {shape}, not {answer!r}."
    if getattr(answer, "name", reference) == reference:
        return f"give your plugin a name of its own (not {reference!r})."
    return None


def plugin_task(point: str, reference: str, manifests: str | Path, pods: Sequence[str],
                plugin_config: Sequence[dict] = ()) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a Filter or Score plugin class that must agree with ``reference``.

    Each pod of ``manifests`` (under :data:`DATASETS`) is scheduled twice with the default
    profile: as is, and with the student's plugin in place of the in-tree ``reference`` at
    ``point``. The verdicts per node (Filter) or raw and normalized scores per node (Score)
    must be the same. ``plugin_config`` (a profile's ``pluginConfig``) configures both runs, for
    instance NodeResourcesFit's scoring strategy.

    >>> from kschedlab.plugins.node_unschedulable import NodeUnschedulable
    >>> class Cordon(NodeUnschedulable):
    ...     name = "Cordon"
    >>> check = plugin_task("filter", "NodeUnschedulable", "course/00-cordoned.yaml", ["default/web"])
    >>> check(Cordon)
    (True, '')
    >>> check(42)
    (False, 'give a plugin class (class MyPlugin(Plugin): ...), not 42.')
    """
    path = DATASETS / manifests

    def check(answer: Any) -> tuple[bool, str]:
        problem = _not_a_plugin(answer, reference, (point, f"{point}_nodes"), "a plugin class (class MyPlugin(Plugin): ...)")
        if problem:
            return False, problem
        for pod in pods:
            want = _plugin_view(_plugin_run(path, pod, point, reference, None, plugin_config), point, reference)
            try:
                got = _plugin_view(_plugin_run(path, pod, point, reference, answer, plugin_config), point,
                                   answer.name)
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"scheduling {pod}, your plugin raised {type(err).__name__}: {err}."
            for node in sorted(set(want) | set(got)):
                if want.get(node) != got.get(node):
                    what = "verdict" if point == "filter" else "(raw, normalized) score"
                    return False, (f"for {pod} on {node} your plugin's {what} is {got.get(node)}; "
                                   f"{reference}'s is {want.get(node)}.")
        return True, ""
    return check


def hint_task(plugin: str, event: str, manifests: str | Path, pod: str,
              deleted: Sequence[str]) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a QueueingHint that must agree with ``plugin``'s hint for ``event``.

    ``pod`` of ``manifests`` (under :data:`DATASETS`) waits, rejected by ``plugin``; each pod of
    ``deleted`` is deleted in turn, and the student's hint ``hint(pod_info, old_obj, new_obj)``
    and the in-tree one are asked whether that deletion may make ``pod`` schedulable. Both
    must say the same (``QueueingHint.Queue`` or ``QueueingHint.QueueSkip``) every time.

    >>> from kschedlab.framework.events import QueueingHint
    >>> check = hint_task("NodeResourcesFit", "AssignedPodDelete", "course/12-deleted-pods.yaml",
    ...                   "default/preemptor", ["default/bound", "default/pending"])
    >>> check(lambda pod_info, old_obj, new_obj: QueueingHint.Queue)
    (False, "when default/pending is deleted your hint says Queue; NodeResourcesFit's says QueueSkip.")
    >>> check("Queue")
    (False, "give a function hint(pod_info, old_obj, new_obj), not 'Queue'.")
    """
    from kschedlab.cluster import Cluster
    from kschedlab.framework.events import QueueingHint
    from kschedlab.framework.runtime import Framework
    from kschedlab.framework.types import PodInfo
    from kschedlab.queue.hints import plugin_hints

    framework = Framework({})
    reference = next(fn for ev, fn in plugin_hints(framework.plugins[plugin]) or [] if ev.label == event)
    cluster = Cluster.from_manifests(DATASETS / manifests)
    waiting = PodInfo.of(cluster.pods[pod])

    def check(answer: Any) -> tuple[bool, str]:
        if not callable(answer) or isinstance(answer, type):
            return False, f"give a function hint(pod_info, old_obj, new_obj), not {answer!r}."
        for name in deleted:
            gone = cluster.pods[name]
            want = QueueingHint(int(reference(waiting, gone, None)))
            try:
                got = QueueingHint(int(answer(waiting, gone, None)))
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"when {name} is deleted your hint raised {type(err).__name__}: {err}."
            if got != want:
                return False, f"when {name} is deleted your hint says {got.name}; {plugin}'s says {want.name}."
        return True, ""
    return check


def placement_task(reference: str, manifests: str | Path, groups: Sequence[str],
                   gates: dict[str, bool]) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a PlacementScore plugin class that must agree with ``reference``.

    Each PodGroup of ``groups`` in ``manifests`` (under :data:`DATASETS`, loaded with ``gates``)
    is scheduled on a fresh cluster twice: with the default profile, and with the student's
    plugin in place of ``reference`` at ``placementScore`` (weight 1). Every candidate placement
    must get the same weighted score (after ``normalize_placement_score``).

    >>> from kschedlab.plugins.podgroup_pods_count import PodGroupPodsCount
    >>> class Count(PodGroupPodsCount):
    ...     name = "Count"
    >>> gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
    >>> check = placement_task("PodGroupPodsCount", "course/16-racks.yaml", ["podgroup/ml/training"], gates)
    >>> check(Count)
    (True, '')
    """
    path = DATASETS / manifests

    def scores(group: str, plugin: type | None) -> dict[str, Any]:
        import pandas as pd

        from kschedlab.cluster import Cluster
        from kschedlab.scheduler import Scheduler
        from kschedlab.viz.podgroup import placement_scores

        config, registry, column = None, None, reference
        if plugin is not None:
            config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                      "profiles": [{"schedulerName": "default-scheduler", "plugins": {"placementScore": {
                          "disabled": [{"name": reference}], "enabled": [{"name": plugin.name, "weight": 1}]}}}]}
            registry, column = {plugin.name: plugin}, plugin.name
        cluster = Cluster.from_manifests(path, feature_gates=gates)
        result = Scheduler(cluster, config, registry=registry, gates=gates, seed=0).schedule_pod_group(group)
        table = placement_scores(result)
        if column not in table:
            return {}
        return {row["placement"]: None if pd.isna(row[column]) else int(row[column]) for _, row in table.iterrows()}

    def check(answer: Any) -> tuple[bool, str]:
        problem = _not_a_plugin(answer, reference, ("score_placement",),
                                "a plugin class with score_placement (class MyScore(Plugin): ...)")
        if problem:
            return False, problem
        for group in groups:
            want = scores(group, None)
            try:
                got = scores(group, answer)
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"scheduling {group}, your plugin raised {type(err).__name__}: {err}."
            for placement in sorted(set(want) | set(got)):
                if want.get(placement) != got.get(placement):
                    return False, (f"for {group} in {placement} your plugin's weighted score is "
                                   f"{got.get(placement)}; {reference}'s is {want.get(placement)}.")
        return True, ""
    return check


def policy_task(reference: str, seed: int, nodes: int, pods: int) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task of notebook 19: a packing policy that must place every pod as
    ``reference`` does, on the synthetic openb sample ``sample_frames(seed, nodes, pods)``.

    The policy is a :class:`~kschedlab.research.fgd.policies.Policy` class; its constructor may
    take the typical pods (as FGD's does) or nothing.

    >>> from kschedlab.research.fgd.policies import DotProduct
    >>> class Tetris(DotProduct):
    ...     name = "Tetris"
    >>> policy_task("DotProduct", 5, 20, 90)(Tetris)
    (True, '')
    """
    from kschedlab.research.fgd.experiment import run
    from kschedlab.research.fgd.openb import sample_frames

    node_frame, pod_frame = sample_frames(seed=seed, nodes=nodes, pods=pods)

    def check(answer: Any) -> tuple[bool, str]:
        import inspect

        if not isinstance(answer, type) or not hasattr(answer, "score"):
            return False, f"give a policy class (class MyPolicy(Policy): ...), not {answer!r}."
        takes_typical = len(inspect.signature(answer).parameters) > 0
        want = run(node_frame, pod_frame, reference, seed=42, keep_placements=True).placements
        try:
            got = run(node_frame, pod_frame, lambda typical: answer(typical) if takes_typical else answer(),
                      seed=42, keep_placements=True).placements
        except Exception as err:  # the student's code: report its error instead of raising
            return False, f"your policy raised {type(err).__name__}: {err}."
        for pod in sorted(set(want) | set(got)):
            if got.get(pod) != want.get(pod):
                return False, (f"{pod}: your policy places it at {got.get(pod, 'nothing')}; "
                               f"{reference} at {want.get(pod, 'nothing')} (node, GPUs).")
        return True, ""
    return check


#: what :func:`sweep_task` compares run by run: the numbers of a sweep's row that depend only on the
#: run's placements (every column of ``SUMMARY_COLUMNS`` but the two wall-clock ones)
SWEEP_METRICS = ("pods", "scheduled", "scheduled_fraction", "pending_p50", "pending_p90", "pending_p99",
                 "pending_max", "cpu_utilization_mean", "gpu_utilization_mean", "cpu_fragmentation_mean",
                 "gpu_fragmentation_mean", "preemptions", "evictions", "gangs", "gang_wait_p50", "gang_wait_p90",
                 "gang_wait_max", "attempts", "end_time")


def _same_number(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def sweep_task(reference: str, plugin_config: Sequence[dict], workload: dict,
               seeds: Sequence[int]) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task of notebook 18: a Score plugin class that, swept over ``seeds``,
    must give the numbers the in-tree ``reference`` gives.

    The grid is two arms × one workload × ``seeds`` (:func:`kschedlab.research.sweep.plan`), each
    run a full simulation (:func:`kschedlab.research.run.execute`, what each Dask task of a sweep
    runs) in this process: the default profile with ``plugin_config`` (its ``pluginConfig``, both
    arms), and the same with the student's plugin in place of ``reference`` at ``score``, with
    ``reference``'s weight. ``workload`` holds the arguments of
    :class:`~kschedlab.research.run.Workload`. Every number of :data:`SWEEP_METRICS` must be the
    same seed by seed.

    >>> from kschedlab.plugins.node_resources_fit import NodeResourcesFit
    >>> class Fit(NodeResourcesFit):
    ...     name = "Fit"
    >>> wl = {"name": "tiny", "generate": {"jobs": 6, "arrival_rate": 0.5}, "nodes": {"count": 2}}
    >>> check = sweep_task("NodeResourcesFit", [], wl, [0])
    >>> check(Fit)
    (True, '')
    >>> check(NodeResourcesFit)
    (False, "give your plugin a name of its own (not 'NodeResourcesFit').")
    """
    from kschedlab.framework.profile import resolve_profile
    from kschedlab.research.run import Variant, Workload, execute
    from kschedlab.research.sweep import plan

    weight = resolve_profile({}).weights[reference]
    profile: dict[str, Any] = {"schedulerName": "default-scheduler", "pluginConfig": list(plugin_config)}
    base = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [profile]}
    replaced = {**base, "profiles": [{**profile, "plugins": {"score": {"disabled": [{"name": reference}]}}}]}
    load = Workload(**workload)
    wanted: dict[int, dict[str, Any]] = {}

    def check(answer: Any) -> tuple[bool, str]:
        problem = _not_a_plugin(answer, reference, ("score", "score_nodes"), "a Score plugin class "
                                "(class MyScore(Plugin): ...)")
        if problem:
            return False, problem
        if not wanted:
            for run in plan({reference: base}, [Variant(reference)], [load], seeds):
                wanted[run.seed] = execute(run)
        yours = Variant("yours", plugins={answer.name: answer},
                        enable=({"name": answer.name, "weight": weight, "point": "score"},))
        for run in plan({"yours": replaced}, [yours], [load], seeds):
            try:
                got = execute(run)
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"seed {run.seed}: your plugin raised {type(err).__name__}: {err}."
            want = wanted[run.seed]
            for metric in SWEEP_METRICS:
                if not _same_number(got[metric], want[metric]):
                    return False, (f"seed {run.seed}: {metric} is {got[metric]:.6g} with your plugin, "
                                   f"{want[metric]:.6g} with {reference}.")
        return True, ""
    return check


def pre_enqueue_task(reference: str, manifests: str | Path, pods: Sequence[str],
                     gates: dict[str, bool] | None = None) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a PreEnqueue plugin class that must agree with ``reference``.

    The cluster of ``manifests`` (under :data:`DATASETS`, loaded with ``gates``) is built once;
    ``reference`` and the student's plugin, both over that cluster, are asked about each pod of
    ``pods``. Their status codes must be the same (``Success`` lets the pod into the queue,
    ``UnschedulableAndUnresolvable`` holds it back).

    >>> from kschedlab.plugins.scheduling_gates import SchedulingGates
    >>> class Gate(SchedulingGates):
    ...     name = "Gate"
    >>> check = pre_enqueue_task("SchedulingGates", "course/04-gates.yaml", ["default/two-gates", "default/ungated"])
    >>> check(Gate)
    (True, '')
    >>> check(SchedulingGates)
    (False, "give your plugin a name of its own (not 'SchedulingGates').")
    """
    from kschedlab.cluster import Cluster
    from kschedlab.features import FeatureGates
    from kschedlab.framework.runtime import Handle
    from kschedlab.framework.types import PodInfo
    from kschedlab.plugins import in_tree_registry

    cluster = Cluster.from_manifests(DATASETS / manifests, feature_gates=gates)
    handle = Handle(FeatureGates(gates or {}), None, cluster)
    in_tree = in_tree_registry()[reference].build(None, handle)

    def check(answer: Any) -> tuple[bool, str]:
        problem = _not_a_plugin(answer, reference, ("pre_enqueue",),
                                "a plugin class with pre_enqueue (class MyGate(Plugin): ...)")
        if problem:
            return False, problem
        for pod in pods:
            info = PodInfo.of(cluster.pods[pod])
            want = in_tree.pre_enqueue(info).code
            try:
                got = answer(None, handle).pre_enqueue(info).code
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"asked about {pod}, your plugin raised {type(err).__name__}: {err}."
            if got != want:
                return False, f"for {pod} your plugin returns {got.name}; {reference} returns {want.name}."
        return True, ""
    return check


def function_task(reference: str, cases: Sequence[Sequence[Any]],
                  manifests: str | Path | None = None) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a function that must return what ``reference`` returns.

    ``reference`` is ``"module:function"`` in kschedlab; the student's function and it are
    called with the arguments of each of ``cases`` and must give equal results (of the same
    type: Go's integers stay ints). With ``manifests`` (under :data:`DATASETS`), each case
    names pods of that cluster, and the functions get those Pod objects (admitted, so with
    their RuntimeClass overhead).

    >>> check = function_task("kschedlab.scheduler.schedule_one:num_feasible_nodes_to_find", [[0, 50], [0, 1000]])
    >>> check(lambda percentage, num_all_nodes: num_all_nodes)
    (False, 'for (0, 1000) your function returns 1000; num_feasible_nodes_to_find returns 420.')
    >>> check("420")
    (False, "give a function, not '420'.")
    >>> pods = function_task("kschedlab.api.resources:pod_requests", [["default/bare"]], "course/03-requests.yaml")
    >>> ok, message = pods(lambda pod: {"cpu": 0, "memory": 0})
    >>> ok, message.split("; ")[1]
    (False, "pod_requests returns {'cpu': 100, 'memory': 41943040}.")
    """
    import importlib

    module, name = reference.split(":")
    in_tree = getattr(importlib.import_module(module), name)
    calls: list[tuple[str, list[Any]]] = [(str(tuple(args)), list(args)) for args in cases]
    if manifests is not None:
        from kschedlab.cluster import Cluster

        cluster = Cluster.from_manifests(DATASETS / manifests)
        calls = [(", ".join(args), [cluster.pods[key] for key in args]) for args in cases]

    def check(answer: Any) -> tuple[bool, str]:
        if not callable(answer) or isinstance(answer, type):
            return False, f"give a function, not {answer!r}."
        for label, args in calls:
            want = in_tree(*args)
            try:
                got = answer(*args)
            except Exception as err:  # the student's code: report its error instead of raising
                return False, f"for {label} your function raised {type(err).__name__}: {err}."
            if got != want or type(got) is not type(want):
                return False, f"for {label} your function returns {got!r}; {name} returns {want!r}."
        return True, ""
    return check

def selector_task(manifests: str | Path, digest: str, salt: str) -> Callable[[Any], tuple[bool, str]]:
    """A check for a coding task: a DRA device selector (a CEL expression) that must pick exactly
    the devices the exercise asks for.

    The selector is compiled and evaluated, as the structured allocator does, on every device
    of the ResourceSlices of ``manifests`` (under :data:`DATASETS`); the devices it picks
    (``pool/device``, sorted, joined by commas) must have ``digest`` (salted with ``salt``), so
    the expected devices are not stored anywhere. A compile or runtime error is reported in
    CEL's words, as upstream would fail the claim.

    >>> key = "node-1/gpu-0,node-1/gpu-1,node-2/gpu-0"
    >>> check = selector_task("course/08-devices.yaml", answer_digest("demo#1", key), "demo#1")
    >>> check('device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"')
    (True, '')
    >>> check('device.attributes["gpu.example.com"].model == "a100"')
    (False, 'on node-2-nics/nic-0 your selector fails: no such key: model.')
    >>> check('device.driver == "gpu.example.com"')[1]
    'your selector picks node-1/gpu-0, node-1/gpu-1, node-1/gpu-2, node-2/gpu-0, node-2/gpu-1: not the devices asked for.'
    """
    from kschedlab.api.dracel import CELError, compile_selector, device_view
    from kschedlab.cluster import Cluster

    cluster = Cluster.from_manifests(DATASETS / manifests)
    devices = [(f"{sl.spec.pool.name}/{d.name}", device_view(sl.spec.driver, d))
               for sl in (cluster.objects.get("ResourceSlice") or {}).values() for d in sl.spec.devices]

    def check(answer: Any) -> tuple[bool, str]:
        if not isinstance(answer, str):
            return False, f"give the selector as a string of CEL, not {answer!r}."
        try:
            selector = compile_selector(answer)
        except CELError as err:
            return False, f"your selector does not compile: {err}."
        picked = []
        for name, view in devices:
            try:
                if selector.matches(view):
                    picked.append(name)
            except CELError as err:
                return False, f"on {name} your selector fails: {err}."
        if answer_digest(salt, ",".join(sorted(picked))) == digest:
            return True, ""
        return False, f"your selector picks {', '.join(sorted(picked)) or 'no device'}: not the devices asked for."
    return check


def explanation_given(answer: Any) -> tuple[bool, str]:
    """The check of an "explain why" exercise: any explanation of a few words is taken.

    >>> explanation_given("because the taint is NoExecute"), explanation_given("yes")[0]
    ((True, ''), False)
    """
    if isinstance(answer, str) and len(answer.split()) >= 3:
        return True, ""
    return False, "write your explanation as a sentence, in a string."


class Exercise:
    """One exercise: ``question``, a check, ``hints`` (shown one at a time), a ``solution``.

    Give either ``answer`` (compared as a number when it is one, else as text; a ``unit`` is
    printed with it) or ``check``: a function of the answer returning a bool or
    ``(bool, feedback)``. ``choices`` turns the question into a multiple choice (``answer``
    is then the right choice). ``explanation`` is printed after a correct answer. An
    ``open_ended`` exercise ("explain why") has no right answer to match: once answered, it
    points to the model answer in ``solution``.

    >>> quiz = Exercise("Who adds spec.overhead?", choices=["the scheduler", "the RuntimeClass admission"],
    ...                 answer="the RuntimeClass admission")
    >>> print(quiz)
    Who adds spec.overhead?
      a) the scheduler
      b) the RuntimeClass admission
    >>> quiz.check("b")
    ✓ Correct.
    True
    """

    def __init__(self, question: str, *, answer: Any = None, check: Callable[[Any], Any] | None = None,
                 hints: Sequence[str] = (), solution: str = "", explanation: str = "", unit: str = "",
                 choices: Sequence[str] = (), open_ended: bool = False) -> None:
        if (answer is None) == (check is None):
            raise ValueError("an Exercise needs exactly one of answer= or check=")
        self.question = question
        self.choices = list(choices)
        self.hints = list(hints)
        self.solution_text = solution
        self.explanation = explanation
        self.unit = unit
        self.answer = answer
        if check is None:
            if self.choices:
                check = one_of(self.choices, answer)
            elif _as_number(answer) is not None and not isinstance(answer, str):
                check = number_equals(answer)
            else:
                check = text_equals(str(answer))
        self._check = check
        self._hints_shown = 0
        self.open_ended = open_ended

    # --------------------------------------------------------------- display

    def __str__(self) -> str:
        lines = [self.question]
        lines += [f"  {'abcdefghijklmnopqrstuvwxyz'[i]}) {c}" for i, c in enumerate(self.choices)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        body = f"**Exercise.** {self.question}"
        if self.choices:
            body += "\n\n" + "\n".join(f"- **{'abcdefghijklmnopqrstuvwxyz'[i]})** {c}"
                                       for i, c in enumerate(self.choices))
        return body

    # --------------------------------------------------------------- actions

    def verdict(self, answer: Any) -> tuple[bool | None, str]:
        """``(correct, message)`` without printing; ``correct`` is None when unanswered.

        >>> Exercise("2 + 2?", answer=4).verdict("4")
        (True, '✓ Correct.')
        """
        if is_unanswered(answer):
            return None, "Not answered yet: replace ... with your answer and run the cell again."
        result = self._check(answer)
        ok, feedback = result if isinstance(result, tuple) else (bool(result), "")
        if ok and self.open_ended:
            return True, "Written down. Now compare it with the model answer: call .solution()."
        if ok:
            shown = f": {answer} {self.unit}".rstrip() + "." if self.unit else "."
            msg = "✓ Correct" + shown
            if self.explanation:
                msg += " " + self.explanation
            return True, msg
        msg = "✗ Not quite" + (f": {feedback}" if feedback else ".")
        msg += " Try again, or ask for a hint with .hint()." if self.hints else " Try again."
        return False, msg

    def check(self, answer: Any) -> bool:
        """Print the verdict on ``answer``; True when it is right (False when unanswered)."""
        ok, msg = self.verdict(answer)
        say(msg)
        return bool(ok)

    def hint(self) -> None:
        """Print the next hint (one per call)."""
        if not self.hints:
            print("This exercise has no hints.")
            return
        if self._hints_shown >= len(self.hints):
            print("No more hints: .solution() shows the worked answer.")
            return
        self._hints_shown += 1
        say(f"Hint {self._hints_shown}/{len(self.hints)}: {self.hints[self._hints_shown - 1]}")

    def solution(self) -> None:
        """Print the worked solution."""
        print(f"Solution: {self.solution_text or self.answer}")


def exercise(notebook: str, number: int, *, book: Path = BOOK) -> "Exercise":
    """Exercise ``number`` (from 1) of ``notebook``, read from the exercise book.

    The book stores each answer as a digest and each solution base64-encoded, so neither
    appears in the notebook nor catches the eye in the file; ``.solution()`` decodes it.

    >>> ex = exercise("00-tour", 1)
    >>> ex.check(...)
    Not answered yet: replace ... with your answer and run the cell again.
    False
    """
    path = book / f"{notebook}.yaml"
    data = safe_load(path.read_text(encoding="utf-8"), source=str(path))
    entry = data["exercises"][number - 1]
    salt = f"{notebook}#{number}"
    choices = entry.get("choices", [])
    kind = entry["kind"]
    if kind == "explain":
        check = explanation_given
    elif kind == "plugin":
        check = plugin_task(entry["point"], entry["reference"], entry["manifests"], entry["pods"],
                            entry.get("plugin_config", ()))
    elif kind == "hint":
        check = hint_task(entry["plugin"], entry["event"], entry["manifests"], entry["pod"], entry["deleted"])
    elif kind == "placement":
        check = placement_task(entry["reference"], entry["manifests"], entry["groups"], entry["gates"])
    elif kind == "policy":
        check = policy_task(entry["reference"], entry["seed"], entry["nodes"], entry["pods"])
    elif kind == "pre_enqueue":
        check = pre_enqueue_task(entry["reference"], entry["manifests"], entry["pods"], entry.get("gates"))
    elif kind == "selector":
        check = selector_task(entry["manifests"], entry["answer_sha256"], salt)
    elif kind == "sweep":
        check = sweep_task(entry["reference"], entry.get("plugin_config", ()), entry["workload"], entry["seeds"])
    elif kind == "function":
        check = function_task(entry["reference"], entry["cases"], entry.get("manifests"))
    elif kind == "predict":
        return PredictExercise(entry, salt)
    else:
        check = digest_equals(kind, entry["answer_sha256"], salt, choices)
    return Exercise(entry["question"], choices=choices, check=check, open_ended=kind == "explain",
                    hints=entry.get("hints", []), explanation=entry.get("explanation", ""),
                    unit=entry.get("unit", ""),
                    solution=base64.b64decode(entry["solution_base64"]).decode("utf-8"))


#: the mark at the end of the line a predict exercise asks to change (an entry's ``note`` may say more)
CHANGE_MARK = "  # <- change this line"
_MISSING = object()


def _field_path(path: str) -> list[str | int]:
    """The parts of a field path: ``spec.containers[0].name``, ``metadata.labels["a.b/c"]``.

    >>> _field_path('spec.topologySpreadConstraints[0].maxSkew')
    ['spec', 'topologySpreadConstraints', 0, 'maxSkew']
    >>> _field_path('metadata.labels["topology.kubernetes.io/zone"]')
    ['metadata', 'labels', 'topology.kubernetes.io/zone']
    """
    import re

    parts: list[str | int] = []
    for name, index, key in re.findall(r'([^.\[\]]+)|\[(\d+)\]|\["([^"]+)"\]', path):
        parts.append(name or (int(index) if index else key))
    return parts


def _show_path(parts: Sequence[str | int]) -> str:
    """The text of a field path (the inverse of :func:`_field_path`).

    >>> _show_path(['metadata', 'labels', 'topology.kubernetes.io/zone', ]), _show_path(['spec', 'x', 0])
    ('metadata.labels["topology.kubernetes.io/zone"]', 'spec.x[0]')
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "." in part or "/" in part:
            out += f'["{part}"]'
        else:
            out += f".{part}" if out else part
    return out


def _field(doc: Any, parts: Sequence[str | int]) -> Any:
    for part in parts:
        if isinstance(part, int) and isinstance(doc, list) and part < len(doc):
            doc = doc[part]
        elif isinstance(part, str) and isinstance(doc, dict) and part in doc:
            doc = doc[part]
        else:
            return _MISSING
    return doc


def _differences(a: Any, b: Any, at: tuple = ()) -> list[tuple]:
    """The field paths where ``a`` and ``b`` differ (a list of another length differs as a whole).

    >>> _differences({"a": [1, 2], "b": {"c": 1}}, {"a": [1, 3], "b": {}, "d": 0})
    [('a', 1), ('b', 'c'), ('d',)]
    """
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in [*a, *(k for k in b if k not in a)]
                for d in _differences(a.get(k, _MISSING), b.get(k, _MISSING), at + (k,))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, at + (i,))]
    return [] if a == b else [at]


def _object_name(doc: Any) -> str | None:
    """``Kind namespace/name`` (``Kind name`` without a namespace, ``Kind`` without a name) of a
    manifest document."""
    if not isinstance(doc, dict):
        return None
    if not isinstance(doc.get("metadata"), dict):
        return str(doc.get("kind"))
    meta = doc["metadata"]
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{doc.get('kind')} {where}{meta.get('name')}"


def _by_object(text: str, source: str) -> tuple[dict[str, Any], list[str]]:
    """The documents of ``text`` by :func:`_object_name`, and the names given more than once."""
    names = [(name, doc) for doc in safe_load_all(text, source) if (name := _object_name(doc)) is not None]
    seen = [name for name, _ in names]
    return dict(names), sorted({name for name in seen if seen.count(name) > 1})


def _shown(value: Any) -> str:
    return "(not set)" if value is _MISSING or value is None else repr(value) if isinstance(value, str) else str(value)


def change_problems(original: str, edited: str, change: Sequence[dict]) -> list[str]:
    """What keeps ``edited`` (manifest text) from being ``original`` with ``change`` made, in words.

    Each item of ``change`` names an ``object`` (``Kind namespace/name``) and either a field
    ``path`` with the ``value`` it must have (or ``values``: any of them; ``null``: the field not
    set; an object not in ``original`` is to be added), or ``deleted: true``. Any other
    difference is reported too.

    >>> before = "kind: Node\\nmetadata: {name: a}\\nspec: {unschedulable: false}\\n"
    >>> ask = [{"object": "Node a", "path": "spec.unschedulable", "value": True}]
    >>> change_problems(before, before, ask)
    ['Node a spec.unschedulable is False; the question asks for True']
    >>> change_problems(before, before.replace("false", "true"), ask)
    []
    >>> change_problems(before, "kind: Node\\nmetadata: {name: a, labels: {x: y}}\\nspec: {unschedulable: true}", ask)
    ['you also changed Node a metadata.labels: undo that, so the outcome answers the question']
    """
    (old, _), (new, repeated) = _by_object(original, "the exercise's YAML"), _by_object(edited, "your YAML")
    problems, asked_objects, asked_fields = [], set(), []
    for item in change:
        name = item["object"]
        if item.get("deleted"):
            asked_objects.add(name)
            if name in new:
                problems.append(f"{name} is still there; the question asks to delete it")
            continue
        if name not in old:
            asked_objects.add(name)
        parts = _field_path(item["path"])
        asked_fields.append((name, tuple(parts)))
        if name not in new:
            problems.append(f"there is no {name} in your YAML; the question asks for one")
            continue
        got = _field(new[name], parts)
        accepted = item["values"] if "values" in item else [item["value"]]
        if not any(got == want or (got is _MISSING and want is None) for want in accepted):
            problems.append(f"{name} {item['path']} is {_shown(got)}; the question asks for {_shown(accepted[0])}")
    also = [f"wrote {name} twice" for name in repeated]
    for name in [*old, *(n for n in new if n not in old)]:
        if name in asked_objects:
            continue
        if name not in new:
            if not any(n == name for n, _ in asked_fields):  # else already said: the change is on it
                also.append(f"deleted {name}")
        elif name not in old:
            also.append(f"added {name}")
        else:
            also += [f"changed {name} {_show_path(diff)}" for diff in _differences(old[name], new[name])
                     if not any((n == name and (diff[:len(p)] == p or p[:len(diff)] == diff))
                                for n, p in asked_fields)]
    if also:
        problems.append(f"you also {', '.join(also)}: undo that, so the outcome answers the question")
    return problems


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1.

    >>> _count(1, "pod"), _count(0, "eviction"), _count(4, "node")
    ('1 pod', '0 evictions', '4 nodes')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _observe(report: Any, cluster: Any, observe: dict) -> tuple[Any, str]:
    """``(value, sentence)``: what ``observe`` asks about, read from a run's ``report`` on ``cluster``."""
    what, pod = observe["what"], observe.get("pod")
    by_name = {p.name: p for p in report.pods}
    if what == "running":
        n = sum(p.pod_status == "Running" for p in report.pods)
        return n, f"{_count(n, 'pod')} {'is' if n == 1 else 'are'} running"
    if pod not in by_name:  # not created, bound in the YAML, or named no profile of the scheduler
        found = cluster.pods.get(pod)
        if found is None:
            return None, f"{pod} is not in the cluster"
        if found.spec.node_name:
            return found.spec.node_name, f"{pod} is on {found.spec.node_name} (bound in the YAML)"
        return "Pending", f"{pod} is Pending: no profile is named {found.spec.scheduler_name!r}"
    entry = by_name[pod]
    if what == "node":
        where = entry.node or entry.pod_status
        return where, f"{pod} is {'on ' + where if entry.node else where}"
    trace = entry.result.trace if entry.result is not None else None
    if what == "feasible":
        n = sum(st.is_success() for st in (trace.filter_statuses() if trace else {}).values())
        return n, f"{_count(n, 'node')} {'passes' if n == 1 else 'pass'} Filter for {pod}"
    if what == "score":
        row = (trace.scores() if trace else {}).get(observe["node"], {})
        plugin = observe.get("plugin")
        value = row.get("total") if plugin is None else row.get(plugin, {}).get("normalized")
        said = "is not scored" if value is None else f"scores {value}" + (f" ({plugin}, normalized)" if plugin else "")
        return value, f"{pod} {said} on {observe['node']}"
    raise ValueError(f"unknown observation {what!r}")


def _eviction_rank(yaml_text: str, observe: dict) -> tuple[int, list[str]]:
    """``(rank, lines)``: where the kubelet puts ``observe["pod"]`` (1: evicted first) when it ranks the
    Pods of ``yaml_text`` for pressure on ``observe["signal"]`` (default ``memory.available``), with the
    usage of the one NodeStatsSummary there."""
    from kschedlab.api.core import Pod
    from kschedlab.api.loader import load_text
    from kschedlab.api.nodestats import NodeStatsSummary
    from kschedlab.kubelet.ranking import pod_priority, rank_pods

    objects = load_text(yaml_text, source="your YAML")
    stats = [o for o in objects if isinstance(o, NodeStatsSummary)]
    if len(stats) != 1:
        raise ValueError(f"your YAML: {len(stats)} NodeStatsSummary documents; the kubelet reads exactly one")
    ranked = rank_pods([o for o in objects if isinstance(o, Pod)], stats[0].summary()["pods"],
                       observe.get("signal", "memory.available"))
    names = [f"{p.metadata.namespace}/{p.metadata.name}" for p in ranked]
    if observe["pod"] not in names:
        raise ValueError(f"your YAML: there is no {observe['pod']} to rank")
    rank = names.index(observe["pod"]) + 1
    lines = [f"  {i}. {name} (priority {pod_priority(p)})" for i, (name, p) in enumerate(zip(names, ranked), 1)]
    return rank, ["How the kubelet ranks the pods of your YAML for eviction (1 goes first):", *lines,
                  f"So {observe['pod']} is at rank {rank}."]


def _thresholds_met(yaml_text: str) -> tuple[int, list[str]]:
    """``(met, lines)``: how many eviction thresholds of the YAML's one KubeletConfiguration the
    signals of its one NodeStatsSummary are below (hard and soft alike, grace periods aside)."""
    from kschedlab.api.kubeletconfig import KubeletConfiguration
    from kschedlab.api.loader import load_text
    from kschedlab.api.nodestats import NodeStatsSummary
    from kschedlab.kubelet import eviction_config, make_signal_observations, thresholds_met
    from kschedlab.kubelet.thresholds import get_threshold_quantity

    objects = load_text(yaml_text, source="your YAML")
    configs = [o for o in objects if isinstance(o, KubeletConfiguration)]
    stats = [o for o in objects if isinstance(o, NodeStatsSummary)]
    if len(configs) != 1 or len(stats) != 1:
        raise ValueError(f"your YAML: {len(configs)} KubeletConfiguration and {len(stats)} NodeStatsSummary "
                         "documents; the kubelet reads exactly one of each")
    thresholds = eviction_config(configs[0]).thresholds
    observed = make_signal_observations(stats[0].summary())
    met = thresholds_met(thresholds, observed, False)
    lines = ["What the kubelet sees with your YAML:"]
    for t in thresholds:
        o = observed.get(t.signal)
        if o is not None:
            lines.append(f"  {t.signal}: available {o.available}, threshold "
                         f"{get_threshold_quantity(t.value, o.capacity)}: {'met' if t in met else 'not met'}")
    return len(met), [*lines, f"So {_count(len(met), 'threshold')} {'is' if len(met) == 1 else 'are'} met."]


def _evictions(yaml_text: str, observe: dict) -> tuple[int, list[str]]:
    """``(allowed, lines)``: the pods of ``observe["pods"]`` evicted back to back through the eviction
    API (one second apart, from t = 100 s) once the disruption controller has computed the budgets of
    ``yaml_text``; ``allowed`` counts the evictions answered 200."""
    import warnings

    from kschedlab.cluster import Cluster
    from kschedlab.controllers.manifests import load_manifests
    from kschedlab.eviction import disruption
    from kschedlab.eviction.api_initiated import evict

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = Cluster(load_manifests(text=yaml_text, source="your YAML"))
    disruption.refresh(cluster, now=0)
    lines, allowed = ["What the API server answered with your YAML:"], 0
    for i, pod in enumerate(observe["pods"]):
        response = evict(cluster, pod, now=100 + i)
        allowed += response.code == 200
        lines.append(f"  evict {pod}: {response.code}" + (f" {response.message}" if response.message else " (evicted)"))
    return allowed, [*lines, f"So {_count(allowed, 'eviction')} {'is' if allowed == 1 else 'are'} allowed."]


def _story(report: Any) -> list[str]:
    """One line per pod of a run: its node, or its status and why."""
    lines = []
    for p in report.pods:
        if p.pod_status == "Running":
            lines.append(f"  {p.name} → {p.node}")
        elif p.pod_status == "Terminating":
            lines.append(f"  {p.name}: Terminating (preempted by {p.preempted_by})")
        else:
            lines.append(f"  {p.name}: {p.pod_status}: {p.message or p.last_failure}")
    return lines


class PredictExercise(Exercise):
    """"Predict, then change the YAML and check": the student writes a prediction, makes the
    change the question asks in the exercise's manifest (:meth:`manifest`, the line to change
    marked) and runs :meth:`try_it`, which schedules the edited YAML, tells what happened and
    whether the prediction and the change are right. The expected outcome is kept only as a
    digest; :meth:`check` compares a prediction with it.

    The book entry (kind ``predict``) names the manifest (``manifests``, under :data:`DATASETS`),
    the text of the line to mark (``mark``, or a list of them; ``note``: what the mark says, when
    not "change this line"), the ``change`` asked (see :func:`change_problems`) and what to
    predict (``observe``): ``{what: node, pod: ns/name}`` (its node, or its status when it is not
    bound), ``{what: feasible, pod: ns/name}`` (how many nodes pass Filter), ``{what: score, pod:
    ns/name, node: name}`` (its total score there; with ``plugin: Name``, that plugin's normalized
    score) or ``{what: running}`` (how many pods the run leaves running). ``answer_sha256`` is the
    digest of the outcome. ``context`` lists manifests loaded beside the student's YAML, unchanged;
    ``gates``, feature gates for loading and scheduling; ``registry`` (``"module:NAME"``), the
    out-of-tree plugins a configuration may enable. A KubeSchedulerConfiguration among the YAML's
    documents configures the scheduler.
    ``{what: eviction_rank, pod: ns/name}`` asks no scheduler: the kubelet ranks the YAML's Pods for
    eviction (``signal``, default ``memory.available``) with the usage of its NodeStatsSummary, and the
    pod's place (1: evicted first) is the outcome; ``{what: evictions, pods: [ns/name, ...]}`` evicts the
    pods back to back through the eviction API once the disruption controller has computed the budgets,
    and counts the evictions allowed; ``{what: thresholds_met}`` counts the eviction thresholds of the
    YAML's KubeletConfiguration that the signals of its NodeStatsSummary are below.

    >>> entry = {"question": "Uncordon node-2: where does web go?", "manifests": "course/00-cordoned.yaml",
    ...          "mark": "unschedulable: true", "observe": {"what": "node", "pod": "default/web"},
    ...          "change": [{"object": "Node node-2", "path": "spec.unschedulable", "values": [False, None]}],
    ...          "answer_sha256": answer_digest("demo#1", "node-2"), "solution_base64": ""}
    >>> ex = PredictExercise(entry, "demo#1")
    >>> yaml_text = ex.manifest()
    >>> [line for line in yaml_text.splitlines() if line.startswith("#") or "change this" in line]
    ['# datasets/course/00-cordoned.yaml, without its opening comments', 'spec: {unschedulable: true}  # <- change this line']
    >>> ex.try_it(yaml_text, "node-1")
    What the scheduler did with your YAML:
      default/web → node-1
      default/node-agent → node-2
    So default/web is on node-1.
    ✗ The change asked is not made yet: Node node-2 spec.unschedulable is True; the question asks for False.
    Your prediction is judged once the change asked is made.
    False
    >>> ex.try_it(yaml_text.replace("unschedulable: true", "unschedulable: false"), "node-2")
    What the scheduler did with your YAML:
      default/web → node-2
      default/node-agent → node-1
    So default/web is on node-2.
    ✓ The change asked is made.
    ✓ Your prediction (node-2) was right.
    True
    >>> ex.try_it("kind: Node\\nmetadata: {name: [}", "node-2")
    Your YAML cannot be used: your YAML:2: invalid YAML: did not find expected node content (column 19)
    Fix it (or take the exercise's YAML again: .manifest()) and run the cell again.
    False
    """

    def __init__(self, entry: dict, salt: str) -> None:
        self.observe = dict(entry["observe"])
        self.answer_kind = "number" if self.observe["what"] != "node" else ("choice" if entry.get("choices")
                                                                           else "text")
        super().__init__(entry["question"], choices=entry.get("choices", ()),
                         check=digest_equals(self.answer_kind, entry["answer_sha256"], salt, entry.get("choices", ())),
                         hints=entry.get("hints", []), explanation=entry.get("explanation", ""),
                         unit=entry.get("unit", ""),
                         solution=base64.b64decode(entry["solution_base64"]).decode("utf-8"))
        self.path = DATASETS / entry["manifests"]
        self.marks = [entry["mark"]] if isinstance(entry["mark"], str) else list(entry["mark"])
        self.note = entry.get("note", "")
        self.context = [DATASETS / path for path in entry.get("context", ())]
        self.gates: dict[str, bool] | None = entry.get("gates")
        self.registry = entry.get("registry")
        self.change = list(entry["change"])

    def _repr_markdown_(self) -> str:
        return super()._repr_markdown_() + (
            "\n\n*Predict, then check:* write your prediction in the answer variable of the next cell before you "
            "touch the YAML; then make the change in the YAML (at the line marked `# <-`) and run the cell.")

    def manifest(self) -> str:
        """The exercise's YAML: the manifest without its opening comments (a dataset's comments often
        tell the outcomes an exercise asks for), the lines holding a ``mark`` ending in
        :data:`CHANGE_MARK` (or in the entry's ``note``, such as "add a label below this line")."""
        lines = self.path.read_text(encoding="utf-8").splitlines()
        while lines and (not lines[0].strip() or lines[0].startswith("#") or lines[0].strip() == "---"):
            lines.pop(0)
        mark = f"  # <- {self.note}" if self.note else CHANGE_MARK
        head = f"# {self.path.relative_to(DATASETS.parent)}, without its opening comments"
        return "\n".join([head, *(line + mark if any(m in line for m in self.marks) else line
                                   for line in lines)]) + "\n"

    def outcome(self, yaml_text: str) -> tuple[Any, list[str]]:
        """``(observed value, lines telling what happened)`` for the YAML ``yaml_text``; raises
        ValueError (ManifestError, ConfigError) when it cannot be loaded or configured."""
        import warnings

        if self.observe["what"] == "eviction_rank":
            return _eviction_rank(yaml_text, self.observe)
        if self.observe["what"] == "evictions":
            return _evictions(yaml_text, self.observe)
        if self.observe["what"] == "thresholds_met":
            return _thresholds_met(yaml_text)

        from kschedlab.api.config import KubeSchedulerConfiguration
        from kschedlab.apiserver.apply import RefusedObjectsWarning
        from kschedlab.cluster import Cluster
        from kschedlab.controllers.manifests import load_manifests
        from kschedlab.scheduler import Scheduler

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            objects = load_manifests(*self.context, text=yaml_text, source="your YAML", feature_gates=self.gates)
        lines = [f"  note: {w.message}" for w in caught if not issubclass(w.category, RefusedObjectsWarning)]
        lines += [f"  refused: {r.kubectl()}" for r in objects.refused]
        configs = [o for o in objects if isinstance(o, KubeSchedulerConfiguration)]
        if len(configs) > 1:
            raise ValueError("your YAML: more than one KubeSchedulerConfiguration")
        for config in configs:
            objects.remove(config)
        cluster = Cluster(objects)
        if any(p.spec.resource_claims for p in cluster.pods.values()):
            from kschedlab.dra.resourceclaim_controller import ResourceClaimController

            # as `kschedlab schedule`: the resourceclaim controller creates the pods' template claims first
            lines += [f"  resourceclaim controller: pod {e.pod}: {e.message}"
                      for e in ResourceClaimController(cluster, seed=0).sync()]
        registry = None
        if self.registry:
            import importlib

            module, name = self.registry.split(":")
            registry = getattr(importlib.import_module(module), name)
        report = Scheduler(cluster, configs[0] if configs else None, gates=self.gates, registry=registry,
                           seed=0).run()
        value, said = _observe(report, cluster, self.observe)
        return value, ["What the scheduler did with your YAML:", *lines, *_story(report), f"So {said}."]

    def try_it(self, yaml_text: Any, prediction: Any = ...) -> bool:
        """Schedule ``yaml_text``, print what happened, then whether the change asked is made and
        whether ``prediction`` is right; True when both are."""
        if is_unanswered(prediction):
            say("Predict first: write your prediction in the answer variable, then run the cell again.")
            return False
        if not isinstance(yaml_text, str):
            say(f"Give the YAML as a string, not {yaml_text!r}.")
            return False
        try:
            problems = change_problems(self.manifest(), yaml_text, self.change)
            observed, lines = self.outcome(yaml_text)
        except ValueError as err:
            say(f"Your YAML cannot be used: {err}\nFix it (or take the exercise's YAML again: .manifest()) "
                  "and run the cell again.")
            return False
        say(*lines)
        if problems:
            say("✗ The change asked is not made yet: " + "; ".join(problems) + ".")
            say("Your prediction is judged once the change asked is made.")
            return False
        say("✓ The change asked is made.")
        ok, feedback = self._check(prediction)
        key = answer_key(self.answer_kind, prediction, self.choices)
        if key is None:
            say(f"✗ {feedback} Write your prediction so it can be compared.")
            return False
        if ok != (key == answer_key(self.answer_kind, observed, self.choices)):
            say("✗ The outcome is not the one the change asked gives: something else in your YAML differs from the "
                  "exercise's (.manifest()). Start again from it and make only the change asked.")
            return False
        if ok:
            say(f"✓ Your prediction ({prediction}) was right." + (f" {self.explanation}" if self.explanation else ""))
            return True
        say(f"✗ Your prediction ({prediction}) is not what happened. Work out why from the outcome above"
              + (", or ask for a hint with .hint()." if self.hints else "."))
        return False
