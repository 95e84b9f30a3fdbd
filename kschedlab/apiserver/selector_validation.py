"""``ValidateLabelSelector`` (apimachinery's metav1 validation): a label selector's labels and
requirements, each value a label value (``AllowInvalidLabelValueInSelector`` off, as on create).

>>> from kschedlab.api.meta import LabelSelector
>>> sel = LabelSelector.model_validate({"matchLabels": {"app": "web"}, "matchExpressions": [
...     {"key": "tier", "operator": "Equals", "values": ["a b"]}, {"key": "x", "operator": "In"}]})
>>> for path, message in label_selector_errors(sel, "spec.selector"):
...     print(f"{path}: {message}")  # doctest: +ELLIPSIS
spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator
spec.selector.matchExpressions[0].values[0]: Invalid value: "a b": a valid label must be ...
spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'

A selector as the bad value of a field error (Go's ``%#v`` of the struct):

>>> go_label_selector(LabelSelector.model_validate({"matchExpressions": [{"key": "k", "operator": "Exists"}]}))
'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"Exists", Values:[]string(nil)}}}'
"""

from __future__ import annotations

from ..api.meta import LabelSelector
from ..api.validation import label_value_errors, qualified_name_errors
from .field import bad_value, forbidden, invalid, required

Errors = list[tuple[str, str]]


def label_selector_errors(selector: LabelSelector | None, path: str) -> Errors:
    """The selector's ``matchLabels`` (keys qualified names, values label values), then each of
    its ``matchExpressions``: an operator upstream knows, values as that operator wants them, a
    qualified-name key, label values."""
    errs: Errors = []
    if selector is None:
        return errs
    labels = f"{path}.matchLabels"
    for key, value in selector.match_labels.items():
        errs += [invalid(labels, key, msg) for msg in qualified_name_errors(key)]
        errs += [invalid(labels, value, msg) for msg in label_value_errors(value)]
    for i, req in enumerate(selector.match_expressions):
        rp = f"{path}.matchExpressions[{i}]"
        if req.operator in ("In", "NotIn"):
            if not req.values:
                errs.append(required(f"{rp}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                errs.append(forbidden(f"{rp}.values",
                                      "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(f"{rp}.operator", req.operator or "", "not a valid selector operator"))
        errs += [invalid(f"{rp}.key", req.key or "", msg) for msg in qualified_name_errors(req.key or "")]
        for j, value in enumerate(req.values):
            errs += [invalid(f"{rp}.values[{j}]", value, msg) for msg in label_value_errors(value)]
    return errs


def go_label_selector(selector: LabelSelector) -> str:
    """``selector`` as Go's ``%#v`` prints a ``metav1.LabelSelector``: a map or list not given is
    ``nil``, one given empty is ``{}``; map keys in order."""
    given = selector.model_fields_set
    if selector.match_labels or "match_labels" in given:
        inner = ", ".join(f"{bad_value(k)}:{bad_value(v)}" for k, v in sorted(selector.match_labels.items()))
        labels = "map[string]string{" + inner + "}"
    else:
        labels = "map[string]string(nil)"
    if selector.match_expressions or "match_expressions" in given:
        reqs = []
        for r in selector.match_expressions:
            values = ("[]string{" + ", ".join(bad_value(v) for v in r.values) + "}"
                      if r.values or "values" in r.model_fields_set else "[]string(nil)")
            reqs.append(f"v1.LabelSelectorRequirement{{Key:{bad_value(r.key or '')}, "
                        f"Operator:{bad_value(r.operator or '')}, Values:{values}}}")
        exprs = "[]v1.LabelSelectorRequirement{" + ", ".join(reqs) + "}"
    else:
        exprs = "[]v1.LabelSelectorRequirement(nil)"
    return f"v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{exprs}}}"
