"""The node-pressure signal figure on the dataset run."""

from pathlib import Path

from kschedlab.sim.scenario import from_files
from kschedlab.viz.node_pressure import signal_figure

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "kubelet" / "sim-memory-pressure.yaml"


def test_signal_figure_on_the_memory_pressure_run():
    sim, until = from_files(DATASET)
    sim.run(until=until)
    fig = signal_figure(sim.kubelet, "node-a", "memory.available")
    available, threshold, evictions = fig.data
    assert list(available.x[:8]) == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 71.0]
    assert list(available.y[:8]) == [7680.0, 4956.0, 3932.0, 2908.0, 1884.0, 860.0, 348.0, 5980.0]
    assert set(threshold.y) == {500.0}
    # the eviction (made for memory.available) is drawn at the signal's value
    assert evictions.x == (60.0,) and evictions.y == (348.0,) and "node-b" in evictions.text[0]
    assert signal_figure(sim.kubelet, "node-a", "pid.available").data[-1].x == ()
    assert [(s.x0, s.x1) for s in fig.layout.shapes] == [(60.0, 361.0)]
