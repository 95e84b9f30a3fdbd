"""The feature library: inference from pod specs, the node mapping, API validation."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.api.node_declared_features import (
    COMPONENT_VERSION,
    DEFAULT_FRAMEWORK,
    DeclaredFeature,
    Framework,
    Version,
)
from kschedlab.apiserver.admission import admit


def required(spec: dict) -> list[str]:
    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": spec})
    return DEFAULT_FRAMEWORK.unmap(DEFAULT_FRAMEWORK.infer_for_pod_scheduling(pod.spec, COMPONENT_VERSION))


@pytest.mark.parametrize("spec, want", [
    ({"containers": [{"name": "c"}]}, []),
    ({"initContainers": [{"name": "i", "restartPolicyRules": [{"action": "RestartAllContainers"}]}],
      "containers": [{"name": "c"}]}, ["RestartAllContainersOnContainerExits"]),
    ({"containers": [{"name": "c", "restartPolicyRules": [{"action": "Restart"}]}]}, []),
    ({"containers": [{"name": "c", "securityContext": {"ulimits": []}}]}, ["ContainerUlimits"]),
    ({"containers": [{"name": "c", "securityContext": {"runAsUser": 1}}]}, []),
    ({"hostNetwork": True, "hostUsers": False, "containers": [{"name": "c"}]}, ["UserNamespacesHostNetworkSupport"]),
    ({"hostNetwork": True, "containers": [{"name": "c"}]}, []),
    ({"hostUsers": False, "containers": [{"name": "c"}]}, []),
    ({"containers": [{"name": "c", "securityContext": {"cgroupOptions": {"mountMode": "Writable"}}}]}, ["CgroupOptions"]),
    ({"containers": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/d", "bindMountOptions": ["noexec"]}]}]},
     ["VolumeBindMountOptions"]),
    ({"resources": {"limits": {"pid": "100"}}, "containers": [{"name": "c"}]}, ["PerPodPIDLimit"]),
    ({"volumes": [{"name": "v", "projected": {"sources": [{"podCertificate": {"keyType": "MLDSA65"}}]}}],
      "containers": [{"name": "c"}]}, ["PodCertificateMLDSA"]),
    ({"volumes": [{"name": "v", "projected": {"sources": [{"podCertificate": {"keyType": "ED25519"}}]}}],
      "containers": [{"name": "c"}]}, []),
    ({"volumes": [{"name": "v", "downwardAPI": {"items": [{"path": "cpus", "resourceFieldRef": {
        "containerName": "c", "resource": "assigned.cpuset"}}]}}], "containers": [{"name": "c"}]},
     ["DownwardAPIAssignedResources"]),
    ({"hostNetwork": True, "hostUsers": False, "containers": [
        {"name": "c", "securityContext": {"ulimits": []}, "restartPolicyRules": [{"action": "RestartAllContainers"}]}]},
     ["ContainerUlimits", "RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"]),
])
def test_inference_from_the_pod_spec(spec, want):
    assert required(spec) == want


def test_registry_is_sorted_and_bits_follow_the_names():
    assert DEFAULT_FRAMEWORK.names == sorted(DEFAULT_FRAMEWORK.names)
    fs = DEFAULT_FRAMEWORK.map_sorted(["ContainerUlimits", "PerPodPIDLimit"])
    assert DEFAULT_FRAMEWORK.unmap(fs) == ["ContainerUlimits", "PerPodPIDLimit"]
    with pytest.raises(ValueError, match="unknown feature Nope"):
        DEFAULT_FRAMEWORK.map_sorted(["Nope"])


def test_try_map_ignores_unknown_names_and_expects_a_sorted_list():
    assert DEFAULT_FRAMEWORK.unmap(DEFAULT_FRAMEWORK.try_map(["AaaUnknown", "ContainerUlimits", "Zzz"])) == [
        "ContainerUlimits"]
    # the merge walks both lists once: an unsorted list loses the names that come "too late"
    assert DEFAULT_FRAMEWORK.unmap(DEFAULT_FRAMEWORK.try_map(["PerPodPIDLimit", "ContainerUlimits"])) == [
        "PerPodPIDLimit"]


def test_max_version_ends_a_requirement():
    always = DeclaredFeature("Old", lambda spec: True, "-", max_version=Version.parse("1.36.0"))
    fw = Framework([always])
    spec = Pod.model_validate({"metadata": {"name": "p"}}).spec
    assert fw.unmap(fw.infer_for_pod_scheduling(spec, Version.parse("1.36.0"))) == ["Old"]
    assert fw.unmap(fw.infer_for_pod_scheduling(spec, Version.parse("1.37.0"))) == []
    with pytest.raises(ValueError, match="target version cannot be nil"):
        fw.infer_for_pod_scheduling(spec, None)


def test_unsatisfied_lists_what_the_node_lacks():
    reqs = DEFAULT_FRAMEWORK.map_sorted(["ContainerUlimits", "RestartAllContainersOnContainerExits"])
    assert DEFAULT_FRAMEWORK.unsatisfied(reqs, ["ContainerUlimits"]) == ["RestartAllContainersOnContainerExits"]


NODE = """\
apiVersion: v1
kind: Node
metadata: {{name: n1}}
status:
  declaredFeatures: {features}
"""


def test_admission_refuses_unsorted_duplicate_and_malformed_names():
    objs = load_text(NODE.format(features="[RestartAllContainersOnContainerExits, ContainerUlimits, ContainerUlimits, bad-name]"),
                     source="nodes.yaml")
    with pytest.raises(ManifestError) as err:
        admit(objs)
    text = str(err.value)
    assert "nodes.yaml: Node n1: status.declaredFeatures[1]: Invalid value: \"ContainerUlimits\": list must be sorted" in text
    assert "status.declaredFeatures[2]: Duplicate value: \"ContainerUlimits\"" in text
    assert "status.declaredFeatures[3]: Invalid value: \"bad-name\": invalid feature name" in text


def test_admission_accepts_a_sorted_list_with_subfeatures():
    objs = admit(load_text(NODE.format(features="[ContainerUlimits, MyFeature/mySubFeature]")))
    assert objs[0].status.declared_features == ["ContainerUlimits", "MyFeature/mySubFeature"]
