"""Node-pressure eviction as the kubelet does it: signals, thresholds, node-level
reclaim and the ranking of pods (upstream ``pkg/kubelet/eviction``)."""
