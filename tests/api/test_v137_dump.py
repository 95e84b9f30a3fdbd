"""A ``kubectl get nodes,pods,pdb,limitranges,resourcequotas,priorityclasses,resourceclaims,resourceslices
-A -o yaml`` dump of a v1.37 cluster (tests/api/data/v137-get-all.yaml, every field the API server, the
kubelet and the controllers fill in) loads and schedules as it is, and a misspelt or wrongly typed field
deep inside a node's status or a container's probe is refused with the file, the object and its path
(these blocks were accepted as plain data before, so a typo loaded silently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.api import ManifestError, load
from kschedlab.cli import main

DUMP = Path(__file__).parent / "data" / "v137-get-all.yaml"


def test_the_dump_loads_with_every_kind_and_typed_status():
    objs = load(DUMP)
    assert sorted({o.kind for o in objs}) == ["LimitRange", "Node", "Pod", "PodDisruptionBudget", "PriorityClass",
                                               "ResourceClaim", "ResourceQuota", "ResourceSlice"]
    node = next(o for o in objs if o.kind == "Node")
    assert node.status.node_info.kubelet_version == "v1.37.0" and node.status.node_info.swap.capacity == 0
    assert node.status.daemon_endpoints.kubelet_endpoint.port == 10250
    assert node.status.config.active.config_map.kubelet_config_key == "kubelet"
    assert [h.name for h in node.status.runtime_handlers] == ["nvidia", ""]
    assert node.status.features.supplemental_groups_policy is True
    assert node.status.volumes_attached[0].device_path == "/dev/xvdba"
    assert [(m.manager, m.subresource) for m in node.metadata.managed_fields] == [("kubelet", None),
                                                                                 ("kubelet", "status")]
    pod = next(o for o in objs if o.kind == "Pod")
    c = pod.spec.containers[0]
    assert c.liveness_probe.http_get.port == 8000 and c.readiness_probe.tcp_socket.port == "http"
    assert c.lifecycle.pre_stop.sleep.seconds == 5 and c.env_from[0].config_map_ref.name == "infer-config"
    assert c.volume_mounts[1].read_only is True and c.resize_policy[0].restart_policy == "NotRequired"
    assert pod.spec.os.name == "linux" and pod.spec.dns_config.options[0].value == "2"
    assert [i.ip for i in pod.status.host_ips] == ["10.0.1.17", "fd00::17"]


def test_cli_schedules_the_dump_as_the_cluster_did(capsys):
    """The one Pending pod gets the message its PodScheduled condition records; the running pod and its
    allocated claim stay as they are."""
    recorded = next(c.message for o in load(DUMP) if o.kind == "Pod" and o.name == "etl-big"
                    for c in o.status.conditions if c.type == "PodScheduled")
    assert main(["schedule", str(DUMP), "-o", "json"]) == 0
    (pod,) = json.loads(capsys.readouterr().out)["pods"]
    assert (pod["name"], pod["node"], pod["message"]) == ("default/etl-big", None, recorded)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("kubeletVersion:", "kubeletVersiom:",
     'Node gpu-1: status.nodeInfo.kubeletVersiom: unknown field "kubeletVersiom"'),
    ("Port: 10250", "port: 10250",
     'Node gpu-1: status.daemonEndpoints.kubeletEndpoint.port: unknown field "port"'),
    ("    - address: 10.0.1.17", "    - adress: 10.0.1.17",
     'Node gpu-1: status.addresses[0].adress: unknown field "adress"'),
    ("        capacity: 0", '        capacity: "0"',
     'Node gpu-1: status.nodeInfo.swap.capacity: invalid type: expected integer, got string "0"'),
    ("path: /health", "pth: /health",
     'Pod ml/infer-6c9d8b7f5-x2k9q: spec.containers[0].livenessProbe.httpGet.pth: unknown field "pth"'),
    ("    - ip: 10.244.1.23", "    - iP: 10.244.1.23",
     'Pod ml/infer-6c9d8b7f5-x2k9q: status.podIPs[0].iP: unknown field "iP"'),
    ("      name: linux", "      nam: linux", 'Pod ml/infer-6c9d8b7f5-x2k9q: spec.os.nam: unknown field "nam"'),
    ("      subresource: status", "      subresourc: status",
     'Node gpu-1: metadata.managedFields[1].subresourc: unknown field "subresourc"'),
    ("        prefix: CFG_", "        prefx: CFG_",
     'Pod ml/infer-6c9d8b7f5-x2k9q: spec.containers[0].envFrom[0].prefx: unknown field "prefx"'),
])
def test_a_misspelt_nested_field_names_file_object_and_path(tmp_path, old, new, message):
    text = DUMP.read_text()
    assert text.count(old) == 1
    bad = tmp_path / "dump.yaml"
    bad.write_text(text.replace(old, new))
    with pytest.raises(ManifestError) as err:
        load(bad)
    assert str(err.value) == f"{bad}: {message}"
