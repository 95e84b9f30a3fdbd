"""The API server's rules for ``scheduling.k8s.io/v1`` PriorityClass objects.

Upstream keeps them in three places; the functions here follow each one and
word their errors as it does:

* defaulting (``SetDefaults_PriorityClass``): ``preemptionPolicy`` becomes
  ``PreemptLowerPriority``; a missing ``value`` is 0;
* validation (``pkg/apis/scheduling/validation``): ``metadata.name`` is a DNS
  subdomain; a name with the ``system-`` prefix must be one of the built-in
  classes, with its value and ``globalDefault: false``; every other class has a
  value of at most 1,000,000,000 (``HighestUserDefinablePriority``); on update,
  ``value`` and ``preemptionPolicy`` may not change.  ``value`` is an int32, so a
  number outside [-2147483648, 2147483647] is refused when the object is decoded;
* the Priority admission plugin (``plugin/pkg/admission/priority``): only one
  class may have ``globalDefault: true``; when several exist anyway (a race), the
  one with the lowest value is the default.

Pods are admitted against the classes by :mod:`kschedlab.apiserver.admission`
(``spec.priority`` and ``spec.preemptionPolicy`` are copied from the class *once*,
at creation).  Deleting a class therefore changes no existing pod; only pods
created later can no longer name it.

>>> pc = PriorityClass.model_validate({"metadata": {"name": "system-gold"}, "value": 10})
>>> [str(e) for e in validate_priority_class(pc)]   # doctest: +NORMALIZE_WHITESPACE
["PriorityClass system-gold: metadata.name: Forbidden: priority class names with 'system-' prefix are
reserved for system use only. error: system-gold is not a known system priority class"]
>>> old = PriorityClass.model_validate({"metadata": {"name": "gold"}, "value": 10})
>>> new = PriorityClass.model_validate({"metadata": {"name": "gold"}, "value": 11})
>>> [str(e) for e in validate_priority_class_update(new, old)]
['PriorityClass gold: value: Forbidden: may not be changed in an update.']
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from ..api.errors import ManifestError
from ..api.scheduling import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_PRIORITY_CLASS_PREFIX,
    SYSTEM_PRIORITY_CLASSES,
    PriorityClass,
)
from .field import not_supported

__all__ = [
    "MIN_INT32",
    "MAX_INT32",
    "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS",
    "set_defaults",
    "priority_class_errors",
    "priority_class_update_errors",
    "global_default_error",
    "validate_priority_class",
    "validate_priority_class_update",
    "global_default_class",
    "admitted_priority",
    "MSG_NO_PRIORITY_CLASS",
]

MIN_INT32 = -(1 << 31)
MAX_INT32 = (1 << 31) - 1
#: ``scheduling.DefaultPriorityWhenNoDefaultClassExists``: the priority of a pod without a class
#: when no class has ``globalDefault: true``
DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, "Never")
"""``ValidatePreemptionPolicy``'s supported values."""

MSG_RESERVED_PREFIX = ("Forbidden: priority class names with '" + SYSTEM_PRIORITY_CLASS_PREFIX
                       + "' prefix are reserved for system use only. error: {detail}")
MSG_VALUE_TOO_HIGH = "Forbidden: maximum allowed value of a user defined priority is {limit}"
MSG_NOT_INT32 = ('PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot unmarshal '
                 'number {value} into Go struct field PriorityClass.value of type int32')
MSG_VALUE_IMMUTABLE = "Forbidden: may not be changed in an update."
MSG_FIELD_IMMUTABLE = 'Invalid value: "{value}": field is immutable'
MSG_ONLY_ONE_DEFAULT = "PriorityClass {name} is already marked as default. Only one default can exist"
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
MSG_NOT_SUBDOMAIN = ("Invalid value: \"{name}\": a lowercase RFC 1123 subdomain must consist of lower case "
                     "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                     "(e.g. 'example.com', regex used for validation is '" + _DNS1123_SUBDOMAIN_FMT + "')")
MSG_NO_PRIORITY_CLASS = "no PriorityClass with name {name} was found"
MSG_NAME_TOO_LONG = 'Invalid value: "{name}": must be no more than 253 characters'
_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)


def set_defaults(pc: PriorityClass) -> PriorityClass:
    """API defaulting, in place: ``value`` 0 when missing, ``preemptionPolicy`` PreemptLowerPriority.

    >>> set_defaults(PriorityClass(metadata={"name": "x"})).preemption_policy
    'PreemptLowerPriority'
    """
    if pc.value is None:
        pc.value = 0
    if pc.preemption_policy is None:
        pc.preemption_policy = PREEMPT_LOWER_PRIORITY
    return pc


def _known_system_class_error(pc: PriorityClass) -> str:
    """``IsKnownSystemPriorityClass``: "" when ``pc`` is one of the built-in classes as they are."""
    name = pc.metadata.name or ""
    if name not in SYSTEM_PRIORITY_CLASSES:
        return f"{name} is not a known system priority class"
    if SYSTEM_PRIORITY_CLASSES[name] != (pc.value or 0):
        return f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
    if pc.global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return ""


def priority_class_errors(pc: PriorityClass) -> list[tuple[str, str]]:
    """``ValidatePriorityClass`` (and the int32 decoding of ``value``) as (field path, message) pairs.

    >>> priority_class_errors(PriorityClass.model_validate({"metadata": {"name": "huge"}, "value": 1000000001}))
    [('value', 'Forbidden: maximum allowed value of a user defined priority is 1000000000')]
    >>> priority_class_errors(PriorityClass.model_validate({"metadata": {"name": "system-node-critical"},
    ...                                                     "value": 2000001000}))
    []
    """
    out: list[tuple[str, str]] = []
    name = pc.metadata.name or ""
    value = pc.value or 0
    if not MIN_INT32 <= value <= MAX_INT32:
        return [("value", MSG_NOT_INT32.format(value=value))]
    if pc.metadata.namespace:  # ValidateObjectMeta of a cluster-scoped kind (admit() clears it first)
        out.append(("metadata.namespace", "Forbidden: not allowed on this type"))
    if not name:
        out.append(("metadata.name", "Required value: name or generateName is required"))
    else:
        if len(name) > 253:
            out.append(("metadata.name", MSG_NAME_TOO_LONG.format(name=name)))
        if not _SUBDOMAIN_RE.fullmatch(name):
            out.append(("metadata.name", MSG_NOT_SUBDOMAIN.format(name=name)))
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        detail = _known_system_class_error(pc)
        if detail:
            out.append(("metadata.name", MSG_RESERVED_PREFIX.format(detail=detail)))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        out.append(("value", MSG_VALUE_TOO_HIGH.format(limit=HIGHEST_USER_DEFINABLE_PRIORITY)))
    if pc.preemption_policy is not None and pc.preemption_policy not in PREEMPTION_POLICIES:
        out.append(not_supported("preemptionPolicy", pc.preemption_policy, PREEMPTION_POLICIES))
    return out


def priority_class_update_errors(new: PriorityClass, old: PriorityClass) -> list[tuple[str, str]]:
    """``ValidatePriorityClassUpdate``: name, namespace, ``value`` and ``preemptionPolicy`` are
    immutable (description and globalDefault may change).  Both objects are taken as defaulted."""
    out: list[tuple[str, str]] = []
    for path, a, b in (("metadata.name", new.metadata.name, old.metadata.name),
                       ("metadata.namespace", new.metadata.namespace, old.metadata.namespace)):
        if (a or "") != (b or ""):  # ValidateObjectMetaUpdate
            out.append((path, MSG_FIELD_IMMUTABLE.format(value=a or "")))
    if (new.value or 0) != (old.value or 0):
        out.append(("value", MSG_VALUE_IMMUTABLE))
    new_policy = new.preemption_policy or PREEMPT_LOWER_PRIORITY
    if new_policy != (old.preemption_policy or PREEMPT_LOWER_PRIORITY):
        out.append(("preemptionPolicy", MSG_FIELD_IMMUTABLE.format(value=new_policy)))
    return out


def global_default_class(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass``: the class with ``globalDefault: true``; when there are several
    (created in a race), the one with the lowest value.

    >>> cs = [PriorityClass.model_validate({"metadata": {"name": n}, "value": v, "globalDefault": True})
    ...       for n, v in (("default2", 2000), ("default1", 1000))]
    >>> global_default_class(cs).name
    'default1'
    """
    best: PriorityClass | None = None
    for pc in classes:
        if pc.global_default and (best is None or (best.value or 0) > (pc.value or 0)):
            best = pc
    return best


def admitted_priority(spec: Any, classes: Mapping[str, PriorityClass]) -> tuple[int, str | None]:
    """The Priority admission plugin's reading of a pod's or a pod group's ``priorityClassName``:
    the priority and preemption policy of the named class; without a name, those of the global
    default class (whose name is written into ``spec``), or (0, None) when there is none. Raises
    LookupError with the API server's message when the named class does not exist.

    >>> from types import SimpleNamespace
    >>> high = PriorityClass.model_validate({"metadata": {"name": "high"}, "value": 1000, "globalDefault": True})
    >>> spec = SimpleNamespace(priority_class_name=None)
    >>> admitted_priority(spec, {"high": high}), spec.priority_class_name
    ((1000, 'PreemptLowerPriority'), 'high')
    >>> admitted_priority(SimpleNamespace(priority_class_name=None), {})
    (0, None)
    >>> admitted_priority(SimpleNamespace(priority_class_name="low"), {"high": high})
    Traceback (most recent call last):
    ...
    LookupError: no PriorityClass with name low was found
    """
    if not spec.priority_class_name:
        dpc = global_default_class(classes.values())
        if dpc is None:
            return DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, None
        spec.priority_class_name = dpc.name
        return dpc.value or 0, dpc.effective_preemption_policy()
    pc = classes.get(spec.priority_class_name)
    if pc is None:
        raise LookupError(MSG_NO_PRIORITY_CLASS.format(name=spec.priority_class_name))
    return pc.value or 0, pc.effective_preemption_policy()


def global_default_error(pc: PriorityClass, existing: Iterable[PriorityClass], *, update: bool = False) -> str:
    """The Priority admission plugin's check of a class being created (or, with ``update``,
    updated) while ``existing`` classes are stored: "" when fine, else its Forbidden reason.

    Only a class with ``globalDefault: true`` is checked; on update, the class may stay the
    default it already is.
    """
    if not pc.global_default:
        return ""
    dpc = global_default_class(c for c in existing if not (update and c.name == pc.name))
    if dpc is None:
        return ""
    return MSG_ONLY_ONE_DEFAULT.format(name=dpc.name)


def _as_errors(pc: PriorityClass, pairs: list[tuple[str | None, str]]) -> list[ManifestError]:
    return [ManifestError(message, file=pc.source_file, obj=pc.describe(), path=path) for path, message in pairs]


def validate_priority_class(pc: PriorityClass, existing: Iterable[PriorityClass] = ()) -> list[ManifestError]:
    """Everything the API server checks when ``pc`` is created while ``existing`` classes are
    stored (validation, then the admission plugin's single-default rule).  Reads ``pc`` as it
    would be after defaulting; changes nothing.

    >>> d1 = PriorityClass.model_validate({"metadata": {"name": "default1"}, "value": 1000, "globalDefault": True})
    >>> d2 = PriorityClass.model_validate({"metadata": {"name": "default2"}, "value": 2000, "globalDefault": True})
    >>> [str(e) for e in validate_priority_class(d2, [d1])]
    ['PriorityClass default2: PriorityClass default1 is already marked as default. Only one default can exist']
    """
    pairs: list[tuple[str | None, str]] = list(priority_class_errors(pc))
    if not pairs:
        reason = global_default_error(pc, [c for c in existing if c.name != pc.name])
        if reason:
            pairs.append((None, reason))
    return _as_errors(pc, pairs)


def validate_priority_class_update(new: PriorityClass, old: PriorityClass,
                                   existing: Iterable[PriorityClass] = ()) -> list[ManifestError]:
    """What the API server checks when ``old`` is replaced by ``new`` (``existing``: the stored
    classes, ``old`` among them or not): immutable fields, then the single-default rule."""
    pairs: list[tuple[str | None, str]] = list(priority_class_update_errors(new, old))
    if not pairs:
        reason = global_default_error(new, existing, update=True)
        if reason:
            pairs.append((None, reason))
    return _as_errors(new, pairs)
