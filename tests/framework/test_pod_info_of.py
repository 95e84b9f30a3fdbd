"""``PodInfo.of`` reads a pod's requests once when every container names cpu and memory (the
scoring defaults then fill in nothing); checked against both plain sums on random pods, each
changed in place between steps (a container's cpu or memory dropped or set, containers added)."""

import random

import pytest

from kschedlab.api.core import Container
from kschedlab.api.quantity import Quantity
from kschedlab.api.resources import CPU, DEFAULT_NON_ZERO, MEMORY, pod_requests
from kschedlab.framework.types import PodInfo
from tests.seeds import seeds
from tests.test_cluster_accounting import EXTENDED, _pod


def _same_as_plain(pod, pod_level_resources: bool) -> None:
    info = PodInfo.of(pod, pod_level_resources=pod_level_resources)
    plain = pod_requests(pod, pod_level_resources=pod_level_resources)
    nz = pod_requests(pod, non_missing=DEFAULT_NON_ZERO, pod_level_resources=pod_level_resources)
    assert list(info.requests.items()) == list(plain.items())
    assert list(info.non_zero_requests.items()) == list(nz.items())
    assert info.non_zero == (nz.get(CPU, 0), nz.get(MEMORY, 0))
    assert info.non_zero_requests is not info.requests


def _mutate(rng: random.Random, pod) -> None:
    containers = [*pod.spec.containers, *pod.spec.init_containers]
    c = rng.choice(containers)
    if c.resources is None:
        return
    name = rng.choice([CPU, MEMORY])
    if name in c.resources.requests and rng.random() < 0.5:
        del c.resources.requests[name]
    else:
        c.resources.requests[name] = Quantity.parse(rng.choice(["0", "250m", "1"]) if name == CPU
                                                    else rng.choice(["0", "64Mi", "1Gi"]))
    if rng.random() < 0.1:
        pod.spec.containers.append(Container(name=f"x{len(pod.spec.containers)}"))


@pytest.mark.parametrize("seed", seeds(6))
def test_requests_match_both_plain_sums(seed):
    rng = random.Random(seed)
    once = twice = 0
    for i in range(150):
        pod = _pod(rng, f"p{i}", EXTENDED)
        for _ in range(rng.randrange(1, 6)):
            if rng.random() < 0.5:  # (often every container names both: the shortcut's case)
                for c in (*pod.spec.containers, *pod.spec.init_containers):
                    c.resources.requests.setdefault(CPU, Quantity.parse("100m"))
                    c.resources.requests.setdefault(MEMORY, Quantity.parse("1Mi"))
            _same_as_plain(pod, pod_level_resources=rng.random() < 0.7)
            names_both = all(CPU in c.resources.requests and MEMORY in c.resources.requests
                             for c in (*pod.spec.containers, *pod.spec.init_containers) if c.resources)
            once, twice = once + names_both, twice + (not names_both)
            _mutate(rng, pod)
    assert once > 50 and twice > 50  # both ways taken
