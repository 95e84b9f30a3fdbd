"""A container's ``env``: ``EnvVar`` and the sources its ``valueFrom`` selects from (``core/v1``).

Each entry is a ``name`` with a literal ``value`` or a ``valueFrom`` naming one source: a field of
the pod (``fieldRef``), a resource of a container (``resourceFieldRef``), a key of a ConfigMap or
Secret, or a key of an env file in a volume (``fileKeyRef``, the EnvFiles gate). A misspelt key
anywhere below is refused with its path, as the API server's strict decoding refuses it.

>>> e = EnvVar.model_validate({"name": "CPU", "valueFrom": {"resourceFieldRef": {
...     "containerName": "app", "resource": "limits.cpu", "divisor": "1m"}}})
>>> e.value_from.resource_field_ref.divisor.milli_value()
1
>>> from pydantic import ValidationError
>>> try:
...     EnvVar.model_validate({"name": "X", "valueFrom": {"fieldRef": {"feildPath": "spec.nodeName"}}})
... except ValidationError as err:
...     print(err.errors()[0]["loc"], err.errors()[0]["type"])
('valueFrom', 'fieldRef', 'feildPath') extra_forbidden
"""

from __future__ import annotations

from ._base import K8sModel
from .quantity import Quantity

__all__ = [
    "ObjectFieldSelector",
    "ResourceFieldSelector",
    "ConfigMapKeySelector",
    "SecretKeySelector",
    "FileKeySelector",
    "EnvVarSource",
    "EnvVar",
]


class ObjectFieldSelector(K8sModel):
    """``fieldRef``: a field of the pod (``metadata.name``, ``spec.nodeName``, ...)."""

    api_version: str | None = None
    field_path: str | None = None


class ResourceFieldSelector(K8sModel):
    """``resourceFieldRef``: a container's request or limit, in units of ``divisor``."""

    container_name: str | None = None
    resource: str | None = None
    divisor: Quantity | None = None


class ConfigMapKeySelector(K8sModel):
    """``configMapKeyRef``: one key of a ConfigMap of the pod's namespace."""

    name: str | None = None
    key: str | None = None
    optional: bool | None = None


class SecretKeySelector(K8sModel):
    """``secretKeyRef``: one key of a Secret of the pod's namespace."""

    name: str | None = None
    key: str | None = None
    optional: bool | None = None


class FileKeySelector(K8sModel):
    """``fileKeyRef``: one key of an env file at ``path`` in volume ``volumeName`` (EnvFiles)."""

    volume_name: str | None = None
    path: str | None = None
    key: str | None = None
    optional: bool | None = None


class EnvVarSource(K8sModel):
    """``valueFrom``: exactly one source."""

    field_ref: ObjectFieldSelector | None = None
    resource_field_ref: ResourceFieldSelector | None = None
    config_map_key_ref: ConfigMapKeySelector | None = None
    secret_key_ref: SecretKeySelector | None = None
    file_key_ref: FileKeySelector | None = None


class EnvVar(K8sModel):
    """One ``env[]`` entry."""

    name: str | None = None
    value: str | None = None
    value_from: EnvVarSource | None = None
