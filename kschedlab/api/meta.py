"""``meta/v1`` types shared by every kind: ObjectMeta, OwnerReference, LabelSelector.

Also the base class of top-level objects, :class:`KubeObject`, which knows its
``apiVersion``/``kind`` and offers ``key`` ("namespace/name", or "name" for
cluster-scoped objects and objects without a namespace, as client-go's
``MetaNamespaceKeyFunc``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from pydantic import Field, PrivateAttr, field_validator, model_validator

from ._base import K8sModel as K8sModel  # the names below are public here too
from ._base import Time as Time
from ._base import check_enum as check_enum
from ._base import copier as copier
from ._base import format_time as format_time
from ._base import parse_time as parse_time
from ._base import time_ns as time_ns

__all__ = [
    "ObjectMeta",
    "ManagedFieldsEntry",
    "OwnerReference",
    "LabelSelector",
    "LabelSelectorRequirement",
    "KubeObject",
    "TypedObject",
    "LABEL_SELECTOR_OPERATORS",
    "label_selector_matches",
]

LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class OwnerReference(K8sModel):
    """metav1.OwnerReference."""

    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    uid: str | None = None
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ManagedFieldsEntry(K8sModel):
    """``metadata.managedFields[]``: which manager set which fields (server-side apply);
    ``fieldsV1`` is the API server's own encoding of a field set, kept as it is."""

    manager: str | None = None
    operation: str | None = None
    api_version: str | None = None
    time: Time | None = None
    fields_type: str | None = None
    fields_v1: Any = Field(default=None, alias="fieldsV1")
    subresource: str | None = None


class ObjectMeta(K8sModel):
    """metav1.ObjectMeta."""

    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    self_link: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    owner_references: list[OwnerReference] = Field(default_factory=list)
    finalizers: list[str] = Field(default_factory=list)
    managed_fields: list[ManagedFieldsEntry] = Field(default_factory=list)

    def controller_ref(self) -> OwnerReference | None:
        """The owner reference with ``controller: true``, if any.

        >>> m = ObjectMeta(owner_references=[OwnerReference(kind="ReplicaSet", name="rs", controller=True)])
        >>> m.controller_ref().name
        'rs'
        """
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


class LabelSelectorRequirement(K8sModel):
    """metav1.LabelSelectorRequirement (operators In, NotIn, Exists, DoesNotExist)."""

    key: str | None = None
    operator: str | None = None
    values: list[str] = Field(default_factory=list)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether a label set satisfies this requirement.

        >>> LabelSelectorRequirement(key="app", operator="NotIn", values=["db"]).matches({})
        True
        """
        key = self.key or ""
        op = self.operator
        if op == "In":
            return key in labels and labels[key] in self.values
        if op == "NotIn":
            return key not in labels or labels[key] not in self.values
        if op == "Exists":
            return key in labels
        if op == "DoesNotExist":
            return key not in labels
        return False


class LabelSelector(K8sModel):
    """metav1.LabelSelector. An empty selector matches everything.

    A *missing* selector (``None`` where a field is optional) matches nothing;
    use :func:`label_selector_matches` to get that rule right.
    """

    match_labels: dict[str, str] = Field(default_factory=dict)
    match_expressions: list[LabelSelectorRequirement] = Field(default_factory=list)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfies every term of the selector.

        >>> LabelSelector(match_labels={"app": "web"}).matches({"app": "web", "x": "y"})
        True
        >>> LabelSelector().matches({})
        True
        """
        for k, v in self.match_labels.items():
            if labels.get(k) != v or k not in labels:
                return False
        return all(r.matches(labels) for r in self.match_expressions)

    def is_empty(self) -> bool:
        """True when the selector has no terms (it selects everything).

        >>> LabelSelector().is_empty(), LabelSelector(match_labels={"a": "b"}).is_empty()
        (True, False)
        """
        return not self.match_labels and not self.match_expressions


def label_selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """``LabelSelectorAsSelector(selector).Matches(labels)``: None matches nothing.

    >>> label_selector_matches(None, {"a": "b"})
    False
    >>> label_selector_matches(LabelSelector(), {"a": "b"})
    True
    """
    if selector is None:
        return False
    return selector.matches(labels)


class TypedObject(K8sModel):
    """Base of every top-level kind: ``apiVersion`` and ``kind``.

    Subclasses set ``API_VERSION`` and ``KIND``. When the input omits
    ``apiVersion``/``kind`` they read as the class's own (without counting as
    set, so dumps round-trip); a different value is an error.
    """

    API_VERSION: ClassVar[str] = ""
    KIND: ClassVar[str] = ""
    NAMESPACED: ClassVar[bool] = False

    api_version: str | None = None
    kind: str | None = None

    # where the object was loaded from: (file, document number); set by the loader
    _source: tuple[str | None, int | None] | None = PrivateAttr(default=None)
    # the API server's decode error for this object's JSON (kschedlab.api.unmarshal); set by the loader
    _decode_error: str | None = PrivateAttr(default=None)
    # the name was made from ``metadata.generateName`` on create (by admission, or by a controller
    # standing in for it): the mutating admission plugins saw no name yet
    _generated_name: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _fill_type_meta(self) -> TypedObject:
        cls = type(self)
        if self.api_version is None:
            object.__setattr__(self, "api_version", cls.API_VERSION)
        elif cls.API_VERSION and self.api_version != cls.API_VERSION:
            raise ValueError(f'apiVersion "{self.api_version}" does not match {cls.KIND} ({cls.API_VERSION})')
        if self.kind is None:
            object.__setattr__(self, "kind", cls.KIND)
        elif cls.KIND and self.kind != cls.KIND:
            raise ValueError(f'kind "{self.kind}" does not match {cls.KIND}')
        return self

    def describe(self) -> str:
        """How error messages name this object (the kind alone here).

        >>> from kschedlab.api.config import KubeSchedulerConfiguration
        >>> KubeSchedulerConfiguration().describe()
        'KubeSchedulerConfiguration'
        """
        return self.kind or type(self).KIND

    @property
    def decode_error(self) -> str | None:
        """The API server's 400 answer to this object's JSON when the load found a count its Go
        type cannot hold (:mod:`kschedlab.api.unmarshal`; the count is left out of the object).

        >>> from kschedlab.api.loader import load_text
        >>> print(load_text("apiVersion: apps/v1\\nkind: ReplicaSet\\nmetadata: {name: r}\\nspec: {replicas: 'two'}")[0]
        ...       .decode_error)
        ReplicaSet in version "v1" cannot be handled as a ReplicaSet: json: cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32
        """
        return self._decode_error

    @property
    def source_file(self) -> str | None:
        """The file this object was loaded from, if it came from the loader.

        >>> from kschedlab.api.loader import load_text
        >>> load_text("apiVersion: v1\\nkind: Node\\nmetadata: {name: 'n'}", source="n.yaml")[0].source_file
        'n.yaml'
        """
        return self._source[0] if self._source else None


class KubeObject(TypedObject):
    """Base of kinds with ``metadata``; adds ``key``, ``name``, ``namespace``."""

    NAMESPACED: ClassVar[bool] = True

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)

    @property
    def name(self) -> str:
        """``metadata.name`` ("" when unset).

        >>> from kschedlab.api.core import Pod
        >>> Pod(metadata={"name": "p"}).name, Pod().name
        ('p', '')
        """
        return self.metadata.name or ""

    @property
    def namespace(self) -> str:
        """``metadata.namespace`` ("" when unset).

        >>> from kschedlab.api.core import Pod
        >>> Pod(metadata={"namespace": "ns"}).namespace
        'ns'
        """
        return self.metadata.namespace or ""

    @property
    def key(self) -> str:
        """"namespace/name" for namespaced objects with a namespace, else "name".

        >>> from kschedlab.api.core import Pod, Node
        >>> Pod(metadata={"name": "web-0", "namespace": "default"}).key
        'default/web-0'
        >>> Node(metadata={"name": "n1"}).key
        'n1'
        """
        ns = self.metadata.namespace if type(self).NAMESPACED else None
        name = self.metadata.name or ""
        return f"{ns}/{name}" if ns else name

    def describe(self) -> str:
        """"Kind key", as used in error messages.

        >>> from kschedlab.api.core import Pod
        >>> Pod(metadata={"name": "web-0", "namespace": "default"}).describe()
        'Pod default/web-0'
        """
        return f"{self.kind or type(self).KIND} {self.key}"


class Condition(K8sModel):
    """``metav1.Condition``: the condition type of newer APIs (PodGroup, ResourceClaim devices, ...)."""

    type: str | None = None
    status: str | None = None
    observed_generation: int | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None

    @field_validator("status")
    @classmethod
    def _check_status(cls, v: str | None) -> str | None:
        return check_enum(v, ("True", "False", "Unknown"))
