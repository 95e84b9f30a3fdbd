"""A container's probes and lifecycle hooks (``v1.Probe``, ``v1.Lifecycle`` and their handlers).

The scheduler reads none of them; they are typed so that a misspelt field in a probe is refused
with its path, as the API server refuses it, instead of loading silently.

>>> p = Probe.model_validate({"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10})
>>> p.http_get.port, p.period_seconds
('http', 10)
>>> Lifecycle.model_validate({"preStop": {"sleep": {"seconds": 5}}}).pre_stop.sleep.seconds
5
"""

from __future__ import annotations

from pydantic import Field

from ._base import IntOrString, K8sModel

__all__ = [
    "ExecAction",
    "GRPCAction",
    "HTTPGetAction",
    "HTTPHeader",
    "Lifecycle",
    "LifecycleHandler",
    "Probe",
    "SleepAction",
    "TCPSocketAction",
]


class ExecAction(K8sModel):
    """Run a command in the container."""

    command: list[str] = Field(default_factory=list)


class HTTPHeader(K8sModel):
    """One header of an HTTP probe."""

    name: str | None = None
    value: str | None = None


class HTTPGetAction(K8sModel):
    """An HTTP GET against the container (``port``: a number or a port name)."""

    path: str | None = None
    port: IntOrString | None = None
    host: str | None = None
    scheme: str | None = None
    http_headers: list[HTTPHeader] = Field(default_factory=list)


class TCPSocketAction(K8sModel):
    """A TCP connection to the container."""

    port: IntOrString | None = None
    host: str | None = None


class GRPCAction(K8sModel):
    """A gRPC health check."""

    port: int | None = None
    service: str | None = None


class SleepAction(K8sModel):
    """Sleep for ``seconds``."""

    seconds: int | None = None


class Probe(K8sModel):
    """``livenessProbe`` / ``readinessProbe`` / ``startupProbe``: one handler and its timing."""

    exec: ExecAction | None = None
    http_get: HTTPGetAction | None = None
    tcp_socket: TCPSocketAction | None = None
    grpc: GRPCAction | None = None
    initial_delay_seconds: int | None = None
    timeout_seconds: int | None = None
    period_seconds: int | None = None
    success_threshold: int | None = None
    failure_threshold: int | None = None
    termination_grace_period_seconds: int | None = None


class LifecycleHandler(K8sModel):
    """``postStart`` / ``preStop``: one action."""

    exec: ExecAction | None = None
    http_get: HTTPGetAction | None = None
    tcp_socket: TCPSocketAction | None = None
    sleep: SleepAction | None = None


class Lifecycle(K8sModel):
    """A container's ``lifecycle``: its hooks and the signal that stops it."""

    post_start: LifecycleHandler | None = None
    pre_stop: LifecycleHandler | None = None
    stop_signal: str | None = None
