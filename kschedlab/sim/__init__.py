"""Discrete-event simulation on a virtual clock: arrivals, scheduling through the
queue, binding, run durations, node changes, gate removal.  Deterministic for
a seed."""

from kschedlab.sim.engine import Simulation, SimulationResult

__all__ = ["Simulation", "SimulationResult"]
