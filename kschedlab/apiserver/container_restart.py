"""Validation of a container's own ``restartPolicy`` and ``restartPolicyRules`` (upstream
``pkg/apis/core/validation``: ``validateInitContainers``, ``validateContainers`` and the restart
policy check they share), with ContainerRestartRules on as at v1.37 (beta since 1.35).

- An init container with ``restartPolicy: Always`` is a sidecar: it may carry ``lifecycle`` and
  the three probes. Any other init container may not (``Forbidden: may not be set for init
  containers without restartPolicy=Always``).
- ``restartPolicyRules`` need the container's own ``restartPolicy`` (``Required value: must
  specify restartPolicy when restart rules are used``), at most 20 rules (``Too many``), each
  with an ``action`` of ``Restart`` or ``RestartAllContainers`` (the latter KEP-5532's, on by
  default since 1.36) and ``exitCodes`` (``Required value: must be specified``) whose ``operator``
  is ``In`` or ``NotIn`` (``Unsupported value``) and with at most 255 ``values`` (``Too many``;
  the codes themselves are not range-checked).

The limits and the ``Too many`` / ``must be specified`` wording are upstream's (the change that made
them ``field.TooMany``); the other messages are those a v1.36 API server returns to ``kubectl apply
--dry-run=server``, the gate-on validation code of these releases not being among the upstream
sources kschedlab read. Which values a container's own ``restartPolicy`` may take (``Always``,
``OnFailure``, ``Never``) is :mod:`~kschedlab.apiserver.pod_validation`'s.

>>> from kschedlab.api.core import PodSpec
>>> spec = PodSpec.model_validate({"initContainers": [{"name": "setup", "readinessProbe": {}},
...     {"name": "proxy", "restartPolicy": "Always", "readinessProbe": {}}],
...     "containers": [{"name": "app", "restartPolicyRules": [{"action": "DoNotRestart",
...         "exitCodes": {"operator": "Between", "values": [42]}}]}]})
>>> for path, message in restart_errors(spec, ["spec"]):
...     print(f"{path}: {message}")
spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always
spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used
spec.containers[0].restartPolicyRules[0].action: Unsupported value: "DoNotRestart": supported values: "Restart", "RestartAllContainers"
spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Between": supported values: "In", "NotIn"
"""

from __future__ import annotations

from typing import Any

from ..api.errors import format_path
from .field import forbidden, not_supported, required, too_many

__all__ = ["restart_errors", "MAX_RESTART_RULES", "MAX_EXIT_CODE_VALUES", "EXIT_CODE_OPERATORS", "RULE_ACTIONS"]

MAX_RESTART_RULES = 20
MAX_EXIT_CODE_VALUES = 255
EXIT_CODE_OPERATORS = ("In", "NotIn")
RULE_ACTIONS = ("Restart", "RestartAllContainers")
_NOT_SIDECAR = "may not be set for init containers without restartPolicy=Always"
#: the fields only a sidecar among init containers may set, in upstream's order
_SIDECAR_ONLY = (("lifecycle", "lifecycle"), ("liveness_probe", "livenessProbe"),
                 ("readiness_probe", "readinessProbe"), ("startup_probe", "startupProbe"))

Errors = list[tuple[str, str]]


def _rules_errors(container: Any, path: list[Any]) -> Errors:
    rules = container.restart_policy_rules or []
    errs: Errors = []
    if container.restart_policy is None and rules:
        errs.append(required(format_path([*path, "restartPolicy"]),
                             "must specify restartPolicy when restart rules are used"))
    if len(rules) > MAX_RESTART_RULES:
        errs.append(too_many(format_path([*path, "restartPolicyRules"]), len(rules), MAX_RESTART_RULES))
    for i, rule in enumerate(rules):
        rule_path = [*path, "restartPolicyRules", i]
        action = rule.action or ""
        if action not in RULE_ACTIONS:
            errs.append(not_supported(format_path([*rule_path, "action"]), action, RULE_ACTIONS))
        exit_codes = rule.exit_codes
        if exit_codes is None:
            errs.append(required(format_path([*rule_path, "exitCodes"]), "must be specified"))
            continue
        operator = exit_codes.operator or ""
        if operator not in EXIT_CODE_OPERATORS:
            errs.append(not_supported(format_path([*rule_path, "exitCodes", "operator"]), operator,
                                      EXIT_CODE_OPERATORS))
        values = exit_codes.values
        if len(values) > MAX_EXIT_CODE_VALUES:
            errs.append(too_many(format_path([*rule_path, "exitCodes", "values"]), len(values),
                                 MAX_EXIT_CODE_VALUES))
    return errs


def restart_errors(spec: Any, path: list[Any]) -> Errors:
    """``(path, message)`` of every restart-policy problem of the containers of ``spec`` (a
    PodSpec at ``path``): init containers first, then regular ones, each in order."""
    errs: Errors = []
    for i, c in enumerate(spec.init_containers):
        p = [*path, "initContainers", i]
        errs += _rules_errors(c, p)
        if c.restart_policy != "Always":
            errs += [forbidden(format_path([*p, alias]), _NOT_SIDECAR)
                     for attr, alias in _SIDECAR_ONLY if getattr(c, attr) is not None]
    for i, c in enumerate(spec.containers):
        errs += _rules_errors(c, [*path, "containers", i])
    return errs
