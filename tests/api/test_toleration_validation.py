"""ValidateTolerations: the Lt / Gt operators (TaintTolerationComparisonOperators) and the
other rules, through admission (create) and pod updates."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Pod, Toleration
from kschedlab.api.errors import ManifestError
from kschedlab.api.tolerations import decimal_integer_errors, validate_tolerations
from kschedlab.apiserver.admission import admit
from kschedlab.apiserver.pod_update import update_pod

GATE_ON = {"TaintTolerationComparisonOperators": True}
PATH = ["spec", "tolerations"]


def pod(*tolerations: dict) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [{"name": "c"}], "tolerations": list(tolerations)}})


@pytest.mark.parametrize(("value", "ok"), [
    ("0", True), ("950", True), ("-3", True), ("9223372036854775807", True),
    ("0950", False), ("+1", False), ("-0", False), ("1.5", False), (" 1", False), ("gold", False), ("-", False),
])
def test_decimal_integer_is_canonical(value, ok):
    assert (decimal_integer_errors(value) == []) is ok


def test_gt_lt_are_unsupported_without_the_gate():
    tols = [Toleration(key="sla", operator="Gt", value="900"), Toleration(key="sla", operator="Lt", value="1000")]
    assert validate_tolerations(tols, PATH) == [
        (["spec", "tolerations", 0, "operator"], 'Unsupported value: "Gt": supported values: "Equal", "Exists"'),
        (["spec", "tolerations", 1, "operator"], 'Unsupported value: "Lt": supported values: "Equal", "Exists"')]
    assert validate_tolerations(tols, PATH, comparison_operators=True) == []


@pytest.mark.parametrize("value", ["0950", "", "high", "1e3"])
def test_gt_value_must_be_a_canonical_integer(value):
    (path, message), = validate_tolerations([Toleration(key="sla", operator="Gt", value=value)], PATH,
                                            comparison_operators=True)
    assert path == ["spec", "tolerations", 0, "value"]
    assert message == f'Invalid value: "{value}": ' + (
        "must be non-empty" if value == "" else "must be a valid decimal integer in canonical form")


def test_the_other_rules_keep_their_messages():
    tols = [Toleration(operator="Equal", value="x"),
            Toleration(key="k", operator="Exists", value="v"),
            Toleration(key="k", value="bad value"),
            Toleration(key="bad key!", operator="Exists"),
            Toleration(key="k", operator="Exists", effect="NoSchedule", toleration_seconds=10)]
    got = validate_tolerations(tols, PATH)
    assert got[0] == (["spec", "tolerations", 0, "operator"], 'Invalid value: "Equal": operator must be Exists '
                      'when `key` is empty, which means "match all values and all keys"')
    assert got[1] == (["spec", "tolerations", 1, "operator"],
                      "Invalid value: \"v\": value must be empty when `operator` is 'Exists'")
    assert got[2][0] == ["spec", "tolerations", 2, "operator"]
    assert got[2][1].startswith('Invalid value: "bad value": a valid label must be an empty string')
    assert got[3][0] == ["spec", "tolerations", 3, "key"] and 'Invalid value: "bad key!": name part' in got[3][1]
    assert got[4] == (["spec", "tolerations", 4, "effect"], "Invalid value: \"NoSchedule\": effect must be "
                      "'NoExecute' when `tolerationSeconds` is set")
    assert len(got) == 5


def test_admission_follows_the_gate_and_names_the_field():
    gt = pod({"key": "sla", "operator": "Gt", "value": "900", "effect": "NoSchedule"})
    with pytest.raises(ManifestError) as err:
        admit([gt])
    assert str(err.value) == ('Pod default/p: spec.tolerations[0].operator: Unsupported value: "Gt": '
                              'supported values: "Equal", "Exists"')
    (admitted,) = admit([gt], feature_gates=GATE_ON)
    assert admitted.spec.tolerations[0].operator == "Gt"
    with pytest.raises(ManifestError, match=r'spec.tolerations\[0\].value: Invalid value: "09": must be a valid'):
        admit([pod({"key": "sla", "operator": "Lt", "value": "09"})], feature_gates=GATE_ON)


def test_an_update_keeps_a_pod_valid_that_already_uses_comparison_operators():
    (created,) = admit([pod({"key": "sla", "operator": "Gt", "value": "900", "effect": "NoSchedule"})],
                       feature_gates=GATE_ON)
    # gate now off: the existing Gt toleration stays, and a new Lt one is accepted too (upstream
    # allows the operators for the whole spec once the old pod uses them)
    tolerations = [t.model_dump(by_alias=True, exclude_none=True) for t in created.spec.tolerations]
    updated = update_pod(created, {"spec": {"tolerations": [*tolerations,
                                                            {"key": "sla", "operator": "Lt", "value": "1000"}]}})
    assert [t.operator for t in updated.spec.tolerations if t.key == "sla"] == ["Gt", "Lt"]
    (plain,) = admit([pod({"key": "k", "operator": "Exists"})])
    with pytest.raises(ManifestError, match='Unsupported value: "Lt"'):
        update_pod(plain, {"spec": {"tolerations": [{"key": "k", "operator": "Exists"},
                                                    {"key": "sla", "operator": "Lt", "value": "1000"}]}})
