"""``kschedlab schedule`` and ``kschedlab simulate`` run one scheduling loop: given a manifest with
nothing timed in it and the same seed, they make the same decisions — every pod's node, status
and attempts (issue #24) — also when the scheduling queue's own timers move pods (a backoff
completing, the leftover flush of the unschedulable pool): both take them from the loop."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import yaml

from kschedlab.api.config import KubeSchedulerConfiguration
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load
from kschedlab.api.simulation import Simulation as SimulationObject
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import create
from kschedlab.features import FeatureGates
from kschedlab.research.fgd.plugins import REGISTRY as FGD_PLUGINS
from kschedlab.scheduler import Scheduler
from kschedlab.sim.scenario import from_files

ROOT = Path(__file__).resolve().parents[2]
MSDEMO = ROOT / ".." / "shared" / "public-manifests" / "msdemo.yaml"

#: three equal nodes for the microservices demo (it brings only Deployments): ties between
#: nodes and the order of same-instant pods decide where its pods go
DEMO_NODES = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: node-{i}, labels: {{kubernetes.io/hostname: node-{i}, topology.kubernetes.io/zone: zone-{i % 2}}}}}
status: {{allocatable: {{cpu: 500m, memory: 1Gi, pods: "110"}}}}
""" for i in range(1, 4))


def _timed(path: Path) -> bool:
    """The file's Simulation has events, usage, kubelets, provisioners on the clock or an attempt
    duration: time matters."""
    for doc in yaml.safe_load_all(path.read_text()):
        if isinstance(doc, dict) and doc.get("kind") == "Simulation":
            spec = doc.get("spec") or {}
            if any(spec.get(k) for k in ("events", "usage", "kubelet", "storage", "attemptDuration")):
                return True
    return False


DATASETS = sorted(p for p in (ROOT / "datasets").rglob("*.yaml") if not _timed(p))
#: out-of-tree plugins a shipped dataset may enable (course/19-gpu-share.yaml: the FGD experiment's);
#: plugins no profile enables change nothing
REGISTRY = FGD_PLUGINS


def _schedule(paths: list[Path], seed: int):
    """What ``kschedlab schedule FILES --seed SEED`` does, up to its report."""
    objects = load([str(p) for p in paths])
    gate_map: dict[str, bool] = {}
    for obj in objects:
        if isinstance(obj, SimulationObject):
            gate_map.update(obj.spec.feature_gates)
    gates = FeatureGates(gate_map)
    configs = [o for o in objects if isinstance(o, KubeSchedulerConfiguration)]
    rest = [o for o in objects if not isinstance(o, (KubeSchedulerConfiguration, SimulationObject))]
    cluster = Cluster(create(rest, feature_gates=dict(gates.overrides), seed=seed, strict=False))
    if any(p.spec.resource_claims for p in cluster.pods.values()):
        from kschedlab.dra.resourceclaim_controller import ResourceClaimController

        ResourceClaimController(cluster, seed=seed).sync()
    return Scheduler(cluster, configs[0] if configs else None, gates=gates, seed=seed, registry=REGISTRY).run()


def _simulate(paths: list[Path], seed: int):
    """What ``kschedlab simulate FILES --seed SEED`` does, reported as ``schedule`` reports."""
    sim, until = from_files(*paths, seed=seed, registry=REGISTRY)
    sim.run(until=until)
    return sim.report()


def _decisions(run) -> list[tuple]:
    return [(p.name, p.node, p.pod_status, p.attempts) for p in run.pods]


def _both(paths: list[Path], seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kinds the scheduler does not use
        try:
            scheduled = _decisions(_schedule(paths, seed))
        except ManifestError as err:  # a file either command refuses: the other refuses it alike
            with pytest.raises(ManifestError) as refused:
                _simulate(paths, seed)
            assert str(refused.value) == str(err)
            return None, None
        return scheduled, _decisions(_simulate(paths, seed))


@pytest.mark.parametrize("path", DATASETS, ids=lambda p: str(p.relative_to(ROOT / "datasets")))
def test_shipped_dataset_same_decisions(path):
    scheduled, simulated = _both([path], seed=0)
    assert simulated == scheduled


@pytest.mark.parametrize("seed", [0, 7])
def test_microservices_demo_same_decisions(tmp_path, seed):
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(DEMO_NODES)
    scheduled, simulated = _both([MSDEMO, nodes], seed=seed)
    assert scheduled is not None and len(scheduled) >= 10
    assert {s for _, _, s, _ in scheduled} == {"Running", "Pending"}  # the nodes are not enough for all
    assert len({n for _, n, _, _ in scheduled if n}) == 3
    assert simulated == scheduled


def test_same_instant_pods_keep_file_order_in_the_simulation(tmp_path):
    """Pods created at the same instant are popped in the order they were created, as
    ``schedule`` pops them (each queue insertion takes a tick of the loop's time)."""
    path = tmp_path / "five.yaml"
    path.write_text("""\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}
""" for name in ("e", "b", "d", "a", "c")))
    sim, _ = from_files(path)
    result = sim.run()
    popped = result.moves[result.moves["to"] == "in-flight"]["pod"].tolist()
    assert popped == [f"default/{n}" for n in ("e", "b", "d", "a", "c")]
    assert list(result.moves["time"].unique()) == [0.0]  # history keeps the simulation's instant


#: one node, a pod too big for it, a small one that binds, and one whose node selector no node
#: matches: the big one has not been tried since the bind (its plugin's hint skips a pod added),
#: so the run waits for the leftover flush, which moves every pod more than 5 minutes in the pool
LEFTOVER_FLUSH = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {disk: hdd}}
status: {allocatable: {cpu: "1", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: small, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: picky, namespace: default}
spec: {nodeSelector: {disk: ssd}, containers: [{name: c}]}
"""

#: a preemptor whose victim goes at once (grace period 0) backs off before its second attempt
#: (with SchedulerPopFromBackoffQ off, until the backoff completes); a pod that does not fit waits
#: for the leftover flush
BACKOFF = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec: {nodeName: n1, terminationGracePeriodSeconds: 0, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, namespace: default}
spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: later, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
"""

NO_POP_FROM_BACKOFF = """---
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: no-pop-from-backoff}
spec: {featureGates: {SchedulerPopFromBackoffQ: false}}
"""

#: manifests whose only timed events are the scheduling queue's own, and the queue events the
#: simulation must show (so the case does exercise the timers)
QUEUE_TIMED = {
    "leftover-flush": (LEFTOVER_FLUSH, {"UnschedulableTimeout"}),
    "backoff-pop-from-backoffq": (BACKOFF, {"PopFromBackoffQ", "UnschedulableTimeout"}),
    "backoff-complete": (BACKOFF + NO_POP_FROM_BACKOFF, {"BackoffComplete", "UnschedulableTimeout"}),
}


@pytest.mark.parametrize("name", sorted(QUEUE_TIMED))
def test_queue_timers_same_decisions(tmp_path, name):
    text, events = QUEUE_TIMED[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    scheduled, simulated = _both([path], seed=0)
    assert simulated == scheduled
    sim, until = from_files(path)
    assert events <= set(sim.run(until=until).moves["event"])


def test_the_leftover_flush_retries_every_pod_past_five_minutes(tmp_path):
    """Upstream's flush moves every pod more than ``podMaxInUnschedulablePodsDuration`` in the
    pool, also one that saw the cluster as it is: ``schedule`` retries it as ``simulate`` does."""
    path = tmp_path / "flush.yaml"
    path.write_text(LEFTOVER_FLUSH)
    scheduled, _ = _both([path], seed=0)
    assert scheduled == [("default/big", None, "Pending", 2), ("default/small", "n1", "Running", 1),
                         ("default/picky", None, "Pending", 2)]
    sim, _ = from_files(path)
    moves = sim.run().moves
    assert moves[moves["event"] == "UnschedulableTimeout"]["time"].tolist() == [330.0, 330.0]
