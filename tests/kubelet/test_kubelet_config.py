"""KubeletConfiguration loading, defaults and the kubelet's start-up errors with field paths."""

from __future__ import annotations

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.api.kubeletconfig import DEFAULT_EVICTION_HARD, KubeletConfiguration
from kschedlab.api.loader import load_text
from kschedlab.kubelet.config import eviction_config, kubelet_config_from_flags, load_kubelet_config

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def _cfg(body: str) -> KubeletConfiguration:
    (cfg,) = load_text(HEAD + body, source="kubelet.yaml")
    return cfg


def _error_lines(body: str) -> list[str]:
    with pytest.raises(ManifestError) as exc:
        eviction_config(_cfg(body))
    return str(exc.value).splitlines()


def test_kind_is_registered_and_real_config_files_load():
    cfg = _cfg("address: 0.0.0.0\nauthentication: {anonymous: {enabled: false}}\ncgroupDriver: systemd\n"
               "evictionHard: {memory.available: 1Gi}\nmaxPods: 250\n")
    assert cfg.eviction_hard == {"memory.available": "1Gi"}


def test_unknown_fields_and_wrong_types_name_their_path():
    with pytest.raises(ManifestError) as exc:
        load_text(HEAD + "evictionHrad: {memory.available: 1Gi}\n", source="kubelet.yaml")
    assert str(exc.value) == 'kubelet.yaml: document 1: evictionHrad: unknown field "evictionHrad"'
    with pytest.raises(ManifestError) as exc:
        load_text(HEAD + "evictionMaxPodGracePeriod: \"30\"\n", source="kubelet.yaml")
    assert "evictionMaxPodGracePeriod: invalid type: expected integer" in str(exc.value)


def test_unknown_signal():
    assert _error_lines("evictionHard: {mem.available: 1Gi}\n") == [
        "kubelet.yaml: KubeletConfiguration: evictionHard[mem.available]: unsupported eviction signal mem.available"]


def test_percentage_over_100():
    assert _error_lines("evictionSoft: {nodefs.available: 101%}\nevictionSoftGracePeriod: {nodefs.available: 1m}\n") == [
        "kubelet.yaml: KubeletConfiguration: evictionSoft[nodefs.available]: "
        "eviction percentage threshold nodefs.available must be <= 100%: 101%"]


def test_negative_and_zero_quantities():
    assert _error_lines("evictionHard: {memory.available: -100Mi, nodefs.available: '0'}\n") == [
        "kubelet.yaml: KubeletConfiguration: evictionHard[memory.available]: "
        "eviction threshold memory.available must be positive: -100Mi",
        "kubelet.yaml: KubeletConfiguration: evictionHard[nodefs.available]: "
        "eviction threshold nodefs.available must be positive: 0"]
    assert _error_lines("evictionMinimumReclaim: {memory.available: -1Mi}\n") == [
        "kubelet.yaml: KubeletConfiguration: evictionMinimumReclaim[memory.available]: "
        "negative eviction minimum reclaim specified for memory.available"]


def test_bad_quantity_percentage_and_durations():
    lines = _error_lines("evictionHard: {memory.available: 1.5.0Gi, nodefs.available: ten%}\n"
                         "evictionSoftGracePeriod: {memory.available: '90'}\n"
                         "evictionPressureTransitionPeriod: 5 minutes\n")
    assert lines == [
        "kubelet.yaml: KubeletConfiguration: evictionHard[memory.available]: quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        'kubelet.yaml: KubeletConfiguration: evictionHard[nodefs.available]: strconv.ParseFloat: parsing "ten": '
        "invalid syntax",
        'kubelet.yaml: KubeletConfiguration: evictionSoftGracePeriod[memory.available]: time: missing unit in '
        'duration "90"',
        'kubelet.yaml: KubeletConfiguration: evictionPressureTransitionPeriod: time: unknown unit " minutes" in '
        'duration "5 minutes"']


def test_soft_threshold_without_grace_period():
    assert _error_lines("evictionSoft: {memory.available: 1Gi}\n") == [
        "kubelet.yaml: KubeletConfiguration: evictionSoftGracePeriod[memory.available]: "
        "grace period must be specified for the soft eviction threshold memory.available"]


def test_reserved_resources():
    assert _error_lines("systemReserved: {memory: -1Gi, nvidia.com/gpu: '1'}\n") == [
        'kubelet.yaml: KubeletConfiguration: systemReserved.memory: resource quantity for "memory" cannot be '
        "negative: -1Gi",
        'kubelet.yaml: KubeletConfiguration: systemReserved[nvidia.com/gpu]: cannot reserve "nvidia.com/gpu" resource']


def test_missing_angle_bracket_in_the_flag():
    with pytest.raises(ManifestError) as exc:
        kubelet_config_from_flags(["--eviction-hard=memory.available=500Mi"])
    assert str(exc.value) == ('kubelet flags: invalid argument "memory.available=500Mi" for "--eviction-hard" flag: '
                              "malformed pair, expect string<string")
    with pytest.raises(ManifestError, match="malformed pair, expect string=string"):
        kubelet_config_from_flags(["--eviction-soft-grace-period", "memory.available<1m"])
    with pytest.raises(ManifestError, match="unknown flag: --evict"):
        kubelet_config_from_flags(["--evict=1"])


def test_errors_change_nothing_and_load_kubelet_config_reports_them(tmp_path):
    p = tmp_path / "kubelet.yaml"
    p.write_text(HEAD + "evictionHard: {memory.available: 200%}\n")
    with pytest.raises(ManifestError, match=r"evictionHard\[memory.available\]: eviction percentage threshold"):
        load_kubelet_config(p)
    cfg = _cfg("evictionHard: {memory.available: 200%}\n")
    before = cfg.model_dump()
    with pytest.raises(ManifestError):
        eviction_config(cfg)
    assert cfg.model_dump() == before


def test_defaults_are_upstreams():
    c = KubeletConfiguration().with_defaults()
    assert c.eviction_hard == DEFAULT_EVICTION_HARD
    assert (c.eviction_pressure_transition_period, c.eviction_max_pod_grace_period,
            c.merge_default_eviction_settings, c.enforce_node_allocatable) == ("5m0s", 0, False, ["pods"])
    assert c.eviction_soft is None and c.eviction_minimum_reclaim is None
    assert DEFAULT_EVICTION_HARD == {"memory.available": "100Mi", "nodefs.available": "10%",
                                     "nodefs.inodesFree": "5%", "imagefs.available": "15%",
                                     "imagefs.inodesFree": "5%"}


@pytest.mark.parametrize("hard, merge, want", [
    (None, False, DEFAULT_EVICTION_HARD),
    (None, True, DEFAULT_EVICTION_HARD),
    ({}, False, {}),
    ({}, True, DEFAULT_EVICTION_HARD),
    ({"memory.available": "1Gi"}, False, {"memory.available": "1Gi"}),
    ({"memory.available": "1Gi"}, True, {**DEFAULT_EVICTION_HARD, "memory.available": "1Gi"}),
    ({"nodefs.available": "0%"}, True, {**DEFAULT_EVICTION_HARD, "nodefs.available": "0%"}),
])
def test_effective_eviction_hard(hard, merge, want):
    assert KubeletConfiguration(eviction_hard=hard, merge_default_eviction_settings=merge).effective_eviction_hard() \
        == want


def test_a_signal_set_to_zero_percent_has_no_threshold():
    ec = eviction_config(KubeletConfiguration(eviction_hard={"nodefs.available": "0%"},
                                              merge_default_eviction_settings=True))
    assert "nodefs.available" not in {t.signal for t in ec.thresholds}


def test_enforce_node_allocatable_without_pods_adds_no_allocatable_threshold():
    ec = eviction_config(KubeletConfiguration(enforce_node_allocatable=["system-reserved"]))
    assert "allocatableMemory.available" not in {t.signal for t in ec.thresholds}
    ec = eviction_config(kubelet_config_from_flags("--enforce-node-allocatable= --eviction-hard=memory.available<1Gi"))
    assert [str(t) for t in ec.thresholds] == ["memory.available<1Gi"]


def test_thresholds_frame():
    df = eviction_config(KubeletConfiguration()).thresholds_frame()
    assert list(df["signal"])[:2] == ["memory.available", "nodefs.available"]
    assert list(df["value"])[:2] == ["100Mi", "10%"] and df["hard"].all() and df["active"].all()
    df = eviction_config(KubeletConfiguration()).with_filesystems("single").thresholds_frame()
    assert list(df[~df["active"]]["signal"]) == ["containerfs.available", "containerfs.inodesFree"]
