"""Plain YAML scalars read as kubectl reads them (sigs.k8s.io/yaml's go-yaml v2 ``resolve``),
and the JSON round trip to the API server (integral floats are integers there)."""

from __future__ import annotations

import json
import math
import tracemalloc

import pytest

from kschedlab.api import ManifestError, load, load_text
from kschedlab.api.safe_yaml import resolve_plain, safe_load
from kschedlab.cli import main

# (plain scalar, what go-yaml v2's resolve gives), by the branches of resolve.go
RESOLVED = [
    ("1e3", 1000.0), ("1E3", 1000.0), ("+12e03", 12000.0), ("-2E+05", -200000.0), ("1.", 1.0), ("-.5", -0.5),
    (".5", 0.5), (".5e1", 5.0), ("0x1F", 31), ("0X1f", 31), ("-0x10", -16), ("0o17", 15), ("0O17", 15),
    ("017", 15), ("0b101", 5), ("-0b101", -5), ("08", 8.0), ("09.5", 9.5), ("1_000", 1000), ("0x_1F", 31),
    ("9223372036854775807", 2**63 - 1), ("18446744073709551615", 2**64 - 1), ("-9223372036854775808", -(2**63)),
    ("18446744073709551616", 18446744073709551616.0), ("0x10000000000000000", 2**64),
    ("y", True), ("Y", True), ("yes", True), ("On", True), ("TRUE", True), ("n", False), ("NO", False),
    ("off", False), ("False", False), ("~", None), ("null", None), ("NULL", None),
    ("1:30", "1:30"), ("190:20:30.15", "190:20:30.15"), ("=", "="), ("0b2", "0b2"), ("1e400", "1e400"),
    ("-0x10000000000000000", "-0x10000000000000000"), ("._5", "._5"), ("+", "+"), ("0x1p-2", "0x1p-2"),
    ("2024-01-02", "2024-01-02"), ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("yEs", "yEs"), ("infinity", "infinity"), (".٥", ".٥"),
]


@pytest.mark.parametrize("text, want", RESOLVED, ids=[t for t, _ in RESOLVED])
def test_a_plain_scalar_resolves_as_go_yaml(text, want):
    got = resolve_plain(text)
    assert (type(got), got) == (type(want), want)
    assert safe_load(f"v: {text}") == {"v": want}
    assert safe_load(f"v: '{text}'") == {"v": text}  # quoted: always text


def test_infinities_and_nan():
    assert [resolve_plain(t) for t in (".inf", "+.Inf", "-.INF")] == [math.inf, math.inf, -math.inf]
    assert math.isnan(resolve_plain(".NaN"))


def test_explicit_tags_decode_or_are_refused_as_go_yaml():
    assert safe_load("a: !!float 10\nb: !!int 0o17\nc: !!str 1e3\nd: !!bool n") == {
        "a": 10.0, "b": 15, "c": "1e3", "d": False}
    with pytest.raises(ManifestError, match=r"cannot decode !!float `1e3` as a !!int"):
        safe_load("a: !!int 1e3", "t.yaml")
    with pytest.raises(ManifestError, match=r"cannot decode !!int `3` as a !!bool"):
        safe_load("a: !!bool 3", "t.yaml")


def test_merge_keys_still_merge_and_a_merge_word_as_value_is_text():
    assert safe_load("b: &b {x: 1}\nm: {<<: *b, z: 2}\nv: <<") == {"b": {"x": 1}, "m": {"x": 1, "z": 2}, "v": "<<"}


def deployment(replicas: str) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\n"
            f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: web}}}}\n"
            f"    spec: {{containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 1e-3}}}}}}]}}\n")


def test_replicas_in_exponent_form_is_a_number():
    """``replicas: 1e3`` was the text "1e3" (refused as not an integer); kubectl reads 1000."""
    (dep,) = load_text(deployment("1e3"), "web.yaml")
    assert dep.spec.replicas == 1000
    assert load_text(deployment("1000.0"), "web.yaml")[0].spec.replicas == 1000  # "1000" in the JSON sent
    # a fraction stops the API server's decode of that object (a 400 for it alone, kschedlab.api.unmarshal)
    assert load_text(deployment("1000.5"), "web.yaml")[0].decode_error == (
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1000.5 into Go '
        "struct field DeploymentSpec.spec.replicas of type int32")


def test_a_json_manifest_float_is_an_integer_too(tmp_path):
    doc = json.loads(json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                 "status": {"allocatable": {"pods": 110.0}}}))
    path = tmp_path / "node.json"
    path.write_text(json.dumps(doc))
    assert load(path)[0].status.allocatable["pods"] == load_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {pods: 110}}")[0].status.allocatable["pods"]


def test_replicas_1e18_is_the_decoders_bad_request_with_file_and_object(tmp_path, capsys):
    path = tmp_path / "web.yaml"
    path.write_text(deployment("1e18"))
    tracemalloc.start()
    code = main(["schedule", str(path), "-o", "json"])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert code == 1
    (refused,) = json.loads(capsys.readouterr().out)["refused"]
    assert refused["object"] == "Deployment default/web" and refused["file"] == str(path)
    # the API server's JSON decoder answers 400 before any validation (kubectl: Error from server (BadRequest))
    assert refused["reason"] == "BadRequest"
    assert refused["message"] == ('Deployment in version "v1" cannot be handled as a Deployment: json: cannot '
                                  'unmarshal number 1000000000000000000 into Go struct field '
                                  'DeploymentSpec.spec.replicas of type int32')
    assert peak < 50 * 2**20  # no pod is made for it


def test_replicas_1e1_through_the_cli_makes_ten_pods(tmp_path, capsys):
    path = tmp_path / "web.yaml"
    path.write_text(deployment("1e1") + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                    "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '20'}}\n")
    assert main(["schedule", str(path), "-o", "json"]) == 0
    pods = json.loads(capsys.readouterr().out)["pods"]
    assert len(pods) == 10 and {p["node"] for p in pods} == {"n1"}


def test_y_and_n_are_booleans_as_kubectl_reads_them():
    """go-yaml v2 reads ``n`` as false: kubectl sends ``"name": false``, refused as not a string."""
    with pytest.raises(ManifestError, match=r"n.yaml: document 1: metadata.name: invalid type: expected string, "
                                            r"got boolean false"):
        load_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n", "n.yaml")
    assert load_text("apiVersion: v1\nkind: Node\nmetadata: {name: 'n'}\n")[0].metadata.name == "n"


def test_a_boolean_where_a_string_belongs_says_to_quote_it():
    with pytest.raises(ManifestError) as err:
        load_text("apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {ssd: yes}}\n", "a.yaml")
    assert str(err.value) == ("a.yaml: Node a: metadata.labels.ssd: invalid type: expected string, got boolean true "
                              "(YAML reads an unquoted yes, no, on, off, y, n, true or false as a boolean, as kubectl "
                              "does: quote the value)")
    with pytest.raises(ManifestError) as err:  # a number where a string belongs: no such hint
        load_text("apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {ssd: 1}}\n", "a.yaml")
    assert "quote" not in str(err.value)
