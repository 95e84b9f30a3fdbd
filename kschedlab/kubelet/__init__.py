"""Node-pressure eviction as the kubelet does it (upstream ``pkg/kubelet/eviction``,
``pkg/kubelet/qos``): signals observed from summary-API stats, thresholds parsed from a
KubeletConfiguration, node-level reclaim, the ranking of pods, one housekeeping round of
the eviction manager, and ``oom_score_adj``.

Modules: ``signals`` (signals, node conditions, observations), ``thresholds`` (parse,
containerfs / allocatable rules, met, grace periods, minimum reclaim), ``config``
(KubeletConfiguration / flags -> :class:`EvictionConfig`, node allocatable),
``ranking`` (who goes first, as a table), ``reclaim`` (node-level reclaim),
``manager`` (:func:`synchronize`, one round; :func:`admit`, new pods under pressure), ``qos_policy`` (oom_score_adj), ``oom`` (the
kernel's OOM killer: badness and victim), ``images`` and ``container_gc`` (the garbage
collectors node-level reclaim runs). The
eviction conformance stages are in :mod:`kschedlab.conformance.kubelet`.

>>> from kschedlab.kubelet import eviction_config, kubelet_config_from_flags
>>> [str(t) for t in eviction_config(kubelet_config_from_flags("--eviction-hard=nodefs.available<1Gi")).thresholds]
['nodefs.available<1Gi']
"""

from .config import (
    EvictionConfig,
    eviction_config,
    eviction_grace_period,
    kubelet_config_from_flags,
    load_kubelet_config,
    node_allocatable,
)
from .images import ImageGCManager, ImageGCPolicy, image_gc_policy
from .manager import AdmitResult, EvictionState, SyncResult, admit, synchronize
from .oom import oom_badness, oom_ranking_frame, oom_ranking_table, select_bad_process
from .qos_policy import container_oom_score_adjust, pod_oom_score_adjusts
from .ranking import rank_pods, ranking_frame, ranking_table
from .signals import SIGNAL_TO_NODE_CONDITION, SIGNAL_TO_RESOURCE, SIGNALS, make_signal_observations
from .thresholds import Threshold, ThresholdValue, parse_threshold_config, reclaim_target, thresholds_met

__all__ = [
    "EvictionConfig", "eviction_config", "eviction_grace_period", "kubelet_config_from_flags",
    "load_kubelet_config", "node_allocatable", "EvictionState", "SyncResult", "synchronize", "admit", "AdmitResult",
    "container_oom_score_adjust", "pod_oom_score_adjusts", "rank_pods", "ranking_frame", "ranking_table",
    "SIGNALS", "SIGNAL_TO_NODE_CONDITION", "SIGNAL_TO_RESOURCE", "make_signal_observations", "Threshold",
    "ThresholdValue", "parse_threshold_config", "reclaim_target", "thresholds_met", "ImageGCManager",
    "ImageGCPolicy", "image_gc_policy", "oom_badness", "oom_ranking_frame", "oom_ranking_table", "select_bad_process",
]
