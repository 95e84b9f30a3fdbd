"""The Downward API for environment variables: the values the kubelet gives a container's
``env`` entries, from literal values and ``valueFrom.fieldRef``.

A field path names a field of the pod: ``metadata.name``, ``metadata.namespace``,
``metadata.uid``, ``metadata.labels['key']``, ``metadata.annotations['key']``, ``metadata.labels``
and ``metadata.annotations`` (all entries, ``key="value"`` lines), ``spec.nodeName``,
``spec.serviceAccountName``, ``status.hostIP`` and ``status.podIP``. A label the pod does not
have gives an empty string. With ``PodTopologyLabelsAdmission`` a bound pod carries its node's
topology labels (:mod:`kschedlab.api.binding`), so the seed's example resolves to the zone:

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "pod-with-topology-labels", "labels": {
...     "topology.kubernetes.io/zone": "antarctica-east1"}}, "spec": {"nodeName": "n1", "containers": [
...     {"name": "app", "image": "alpine", "env": [
...        {"name": "MY_ZONE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['topology.kubernetes.io/zone']"}}},
...        {"name": "MY_REGION", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['topology.kubernetes.io/region']"}}},
...        {"name": "GREETING", "value": "hi"}]}]}})
>>> downward_api_env(pod)
{'MY_ZONE': 'antarctica-east1', 'MY_REGION': '', 'GREETING': 'hi'}
"""

from __future__ import annotations

import re

from kschedlab.api.env import EnvVarSource
from kschedlab.api.errors import ManifestError

__all__ = ["downward_api_env", "field_value"]

_SUBSCRIPT = re.compile(r"^(metadata\.(?:labels|annotations))\['([^']*)'\]$")
_PLAIN = {
    "metadata.name": lambda p: p.metadata.name or "",
    "metadata.namespace": lambda p: p.metadata.namespace or "",
    "metadata.uid": lambda p: p.metadata.uid or "",
    "spec.nodeName": lambda p: p.spec.node_name or "",
    "spec.serviceAccountName": lambda p: p.spec.service_account_name or "",
    "status.hostIP": lambda p: (p.status.host_ip if p.status else None) or "",
    "status.podIP": lambda p: (p.status.pod_ip if p.status else None) or "",
}


def _format_map(values: dict) -> str:
    return "\n".join(f'{k}="{values[k]}"' for k in sorted(values))


def field_value(pod, field_path: str) -> str:
    """The value of ``field_path`` on ``pod`` as the Downward API gives it; an unsupported path
    raises ValueError.

    >>> from kschedlab.api.core import Pod
    >>> p = Pod.model_validate({"metadata": {"name": "p", "labels": {"b": "2", "a": "1"}}})
    >>> field_value(p, "metadata.labels")
    'a="1"\\nb="2"'
    """
    m = _SUBSCRIPT.match(field_path)
    if m:
        values = pod.metadata.labels if m.group(1) == "metadata.labels" else pod.metadata.annotations
        return (values or {}).get(m.group(2), "")
    if field_path == "metadata.labels":
        return _format_map(pod.metadata.labels or {})
    if field_path == "metadata.annotations":
        return _format_map(pod.metadata.annotations or {})
    getter = _PLAIN.get(field_path)
    if getter is None:
        raise ValueError(f'unsupported fieldPath "{field_path}"')
    return getter(pod)


def downward_api_env(pod, container: str | None = None) -> dict[str, str]:
    """A container's environment from its ``env`` list: literal ``value`` entries and
    ``valueFrom.fieldRef`` entries resolved on ``pod`` (later entries of the same name win).

    ``container`` names the container (default: the first). Entries from ConfigMaps, Secrets or
    ``resourceFieldRef`` are not resolved here: they raise a ManifestError naming the entry, as
    does an unknown container or an unsupported field path.
    """
    where = f"Pod {pod.metadata.namespace or ''}/{pod.metadata.name}".replace(" /", " ")
    containers = list(pod.spec.containers)
    if not containers:
        raise ManifestError("the pod has no containers", obj=where, path="spec.containers")
    index = 0
    if container is not None:
        index = next((i for i, c in enumerate(containers) if c.name == container), -1)
        if index < 0:
            raise ManifestError(f'no container named "{container}"', obj=where, path="spec.containers")
    out: dict[str, str] = {}
    for j, env in enumerate(containers[index].env):
        path = f"spec.containers[{index}].env[{j}]"
        name = env.name or ""
        value_from = env.value_from
        if value_from is None:
            out[name] = env.value or ""
            continue
        field_ref = value_from.field_ref
        if field_ref is None:
            kind = next((f.alias or n for n, f in EnvVarSource.model_fields.items()
                         if getattr(value_from, n) is not None), "valueFrom")
            raise ManifestError(f"{kind} is not resolved by the Downward API helper", obj=where,
                                path=f"{path}.valueFrom.{kind}")
        try:
            out[name] = field_value(pod, field_ref.field_path or "")
        except ValueError as err:
            raise ManifestError(str(err), obj=where, path=f"{path}.valueFrom.fieldRef.fieldPath") from None
    return out
