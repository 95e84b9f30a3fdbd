"""Every block of a Pod that used to load as plain data is typed: a valid example loads, a
misspelt key is refused with its path, a value of the wrong type too (the decoder's strictness)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_objects, load_text
from tests.api.doc_paths import at, dotted

T = "2026-01-02T03:04:05Z"


def _pod(spec: dict | None = None, status: dict | None = None) -> dict:
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                           "spec": {"containers": [{"name": "app", "image": "nginx"}], **(spec or {})}}
    if status is not None:
        pod["status"] = status
    return pod


def _c(**fields: Any) -> dict:
    return _pod({"containers": [{"name": "app", "image": "nginx", **fields}]})


def _vol(source: str, body: dict) -> dict:
    return _pod({"volumes": [{"name": "v", source: body}]})


#: (id, valid pod, path to a mapping of it (a typo goes there), (path to a scalar, a value of the wrong type))
BLOCKS: list[tuple[str, dict, list, tuple[list, Any]]] = [
    ("env-value", _c(env=[{"name": "A", "value": "1"}]), ["spec", "containers", 0, "env", 0],
     (["spec", "containers", 0, "env", 0, "value"], 1)),
    ("env-fieldRef", _c(env=[{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]),
     ["spec", "containers", 0, "env", 0, "valueFrom", "fieldRef"],
     (["spec", "containers", 0, "env", 0, "valueFrom", "fieldRef", "fieldPath"], ["spec.nodeName"])),
    ("env-resourceFieldRef", _c(env=[{"name": "C", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu",
                                                                                     "divisor": "1m"}}}]),
     ["spec", "containers", 0, "env", 0, "valueFrom", "resourceFieldRef"],
     (["spec", "containers", 0, "env", 0, "valueFrom", "resourceFieldRef", "divisor"], "1.5.0")),
    ("env-configMapKeyRef", _c(env=[{"name": "K", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k",
                                                                                   "optional": True}}}]),
     ["spec", "containers", 0, "env", 0, "valueFrom", "configMapKeyRef"],
     (["spec", "containers", 0, "env", 0, "valueFrom", "configMapKeyRef", "optional"], "yes")),
    ("env-secretKeyRef", _c(env=[{"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]),
     ["spec", "containers", 0, "env", 0, "valueFrom", "secretKeyRef"],
     (["spec", "containers", 0, "env", 0, "valueFrom", "secretKeyRef", "key"], 7)),
    ("env-fileKeyRef", _c(env=[{"name": "F", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "a.env",
                                                                         "key": "F", "optional": False}}}]),
     ["spec", "containers", 0, "env", 0, "valueFrom", "fileKeyRef"],
     (["spec", "containers", 0, "env", 0, "valueFrom", "fileKeyRef", "volumeName"], {"name": "cfg"})),
    ("securityContext", _c(securityContext={
        "capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}, "privileged": False, "runAsUser": 1000,
        "runAsGroup": 3000, "runAsNonRoot": True, "readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
        "procMount": "Default", "seLinuxOptions": {"level": "s0:c123,c456"},
        "seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/a.json"},
        "appArmorProfile": {"type": "RuntimeDefault"},
        "windowsOptions": {"runAsUserName": "ContainerUser", "hostProcess": False}}),
     ["spec", "containers", 0, "securityContext"], (["spec", "containers", 0, "securityContext", "runAsUser"], "1000")),
    ("securityContext-capabilities", _c(securityContext={"capabilities": {"drop": ["ALL"]}}),
     ["spec", "containers", 0, "securityContext", "capabilities"],
     (["spec", "containers", 0, "securityContext", "capabilities", "drop"], "ALL")),
    ("securityContext-seLinuxOptions", _c(securityContext={"seLinuxOptions": {"user": "u", "role": "r", "type": "t"}}),
     ["spec", "containers", 0, "securityContext", "seLinuxOptions"],
     (["spec", "containers", 0, "securityContext", "seLinuxOptions", "type"], 1)),
    ("securityContext-seccompProfile", _c(securityContext={"seccompProfile": {"type": "RuntimeDefault"}}),
     ["spec", "containers", 0, "securityContext", "seccompProfile"],
     (["spec", "containers", 0, "securityContext", "seccompProfile", "type"], True)),
    ("securityContext-appArmorProfile", _c(securityContext={"appArmorProfile": {"type": "Unconfined"}}),
     ["spec", "containers", 0, "securityContext", "appArmorProfile"],
     (["spec", "containers", 0, "securityContext", "appArmorProfile", "localhostProfile"], 3)),
    ("securityContext-windowsOptions", _c(securityContext={"windowsOptions": {"gmsaCredentialSpecName": "gmsa"}}),
     ["spec", "containers", 0, "securityContext", "windowsOptions"],
     (["spec", "containers", 0, "securityContext", "windowsOptions", "hostProcess"], "false")),
    ("securityContext-ulimits", _c(securityContext={"ulimits": [{"name": "nofile", "soft": 1024, "hard": 2048}]}),
     ["spec", "containers", 0, "securityContext", "ulimits", 0],
     (["spec", "containers", 0, "securityContext", "ulimits", 0, "soft"], "1024")),
    ("pod-securityContext", _pod({"securityContext": {
        "runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000, "supplementalGroups": [4000],
        "supplementalGroupsPolicy": "Strict", "fsGroupChangePolicy": "OnRootMismatch",
        "seLinuxChangePolicy": "MountOption", "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}],
        "seccompProfile": {"type": "RuntimeDefault"}, "appArmorProfile": {"type": "RuntimeDefault"}}}),
     ["spec", "securityContext"], (["spec", "securityContext", "supplementalGroups"], ["4000"])),
    ("pod-securityContext-sysctls", _pod({"securityContext": {"sysctls": [{"name": "kernel.shm_rmid_forced",
                                                                           "value": "0"}]}}),
     ["spec", "securityContext", "sysctls", 0], (["spec", "securityContext", "sysctls", 0, "value"], 0)),
    ("restartPolicyRules", _c(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]),
     ["spec", "containers", 0, "restartPolicyRules", 0, "exitCodes"],
     (["spec", "containers", 0, "restartPolicyRules", 0, "exitCodes", "values"], ["42"])),
    ("ephemeralContainers", _pod({"ephemeralContainers": [{"name": "debug", "image": "busybox",
                                                           "targetContainerName": "app", "stdin": True}]}),
     ["spec", "ephemeralContainers", 0], (["spec", "ephemeralContainers", 0, "targetContainerName"], ["app"])),
    ("containerStatuses", _pod(status={"containerStatuses": [{
        "name": "app", "ready": True, "restartCount": 1, "started": True, "image": "nginx:1.27",
        "imageID": "docker.io/library/nginx@sha256:ab", "containerID": "containerd://1",
        "state": {"running": {"startedAt": T}},
        "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "startedAt": T, "finishedAt": T,
                                     "containerID": "containerd://0"}},
        "allocatedResources": {"cpu": "500m"}, "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}},
        "user": {"linux": {"uid": 0, "gid": 0, "supplementalGroups": [0, 10]}},
        "volumeMounts": [{"name": "kube-api-access", "mountPath": "/var/run/secrets", "readOnly": True,
                          "recursiveReadOnly": "Disabled"}],
        "allocatedResourcesStatus": [{"name": "claim:gpu", "resources": [{"resourceID": "dra:gpu.example.com/gpu-0",
                                                                          "health": "Healthy"}]}],
        "stopSignal": "SIGTERM"}]}),
     ["status", "containerStatuses", 0, "lastState", "terminated"],
     (["status", "containerStatuses", 0, "restartCount"], "1")),
    ("containerStatuses-waiting", _pod(status={"containerStatuses": [{"name": "app", "state": {
        "waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}}]}),
     ["status", "containerStatuses", 0, "state", "waiting"],
     (["status", "containerStatuses", 0, "state", "waiting", "reason"], 1)),
    ("containerStatuses-user", _pod(status={"containerStatuses": [{"name": "app", "user": {"linux": {"uid": 1}}}]}),
     ["status", "containerStatuses", 0, "user", "linux"],
     (["status", "containerStatuses", 0, "user", "linux", "gid"], "0")),
    ("containerStatuses-allocatedResourcesStatus", _pod(status={"containerStatuses": [{"name": "app",
        "allocatedResourcesStatus": [{"name": "nvidia.com/gpu", "resources": [{"resourceID": "gpu-0",
                                                                               "health": "Unhealthy"}]}]}]}),
     ["status", "containerStatuses", 0, "allocatedResourcesStatus", 0, "resources", 0],
     (["status", "containerStatuses", 0, "allocatedResourcesStatus", 0, "resources"], "gpu-0")),
    ("initContainerStatuses", _pod(status={"initContainerStatuses": [{"name": "init", "ready": False,
        "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}),
     ["status", "initContainerStatuses", 0, "state", "terminated"],
     (["status", "initContainerStatuses", 0, "state", "terminated", "exitCode"], "0")),
    ("ephemeralContainerStatuses", _pod(status={"ephemeralContainerStatuses": [{"name": "debug", "ready": False,
        "state": {"running": {"startedAt": T}}}]}),
     ["status", "ephemeralContainerStatuses", 0, "state", "running"],
     (["status", "ephemeralContainerStatuses", 0, "ready"], "false")),
    ("extendedResourceClaimStatus", _pod(status={"extendedResourceClaimStatus": {
        "resourceClaimName": "p-extended-resources-abcde",
        "requestMappings": [{"containerName": "app", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}]}}),
     ["status", "extendedResourceClaimStatus", "requestMappings", 0],
     (["status", "extendedResourceClaimStatus", "resourceClaimName"], 5)),
    ("nodeAllocatableResourceClaimStatuses", _pod(status={"nodeAllocatableResourceClaimStatuses": [{
        "resourceClaimName": "cpu-claim", "containers": ["app"], "mapping": [{"name": "cpu", "quantity": "2"}],
        "overhead": [{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}]}]}),
     ["status", "nodeAllocatableResourceClaimStatuses", 0, "overhead", 0],
     (["status", "nodeAllocatableResourceClaimStatuses", 0, "mapping", 0, "quantity"], "two")),
]

#: one valid body per volume source of VolumeSource (the typed ones of before included)
VOLUME_SOURCES: dict[str, tuple[dict, tuple[str, Any]]] = {
    "hostPath": ({"path": "/var/log", "type": "Directory"}, ("path", ["/var/log"])),
    "emptyDir": ({"medium": "Memory", "sizeLimit": "1Gi"}, ("sizeLimit", "1.5.0")),
    "gcePersistentDisk": ({"pdName": "d", "fsType": "ext4", "partition": 1}, ("partition", "1")),
    "awsElasticBlockStore": ({"volumeID": "vol-1", "fsType": "ext4"}, ("volumeID", 1)),
    "gitRepo": ({"repository": "https://example.com/r.git", "revision": "main", "directory": "."}, ("revision", 1)),
    "secret": ({"secretName": "s", "items": [{"key": "k", "path": "p", "mode": 256}], "defaultMode": 420,
                "optional": True}, ("defaultMode", "0644")),
    "nfs": ({"server": "nfs.example.com", "path": "/exports", "readOnly": True}, ("readOnly", "true")),
    "iscsi": ({"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}, ("lun", "0")),
    "glusterfs": ({"endpoints": "glusterfs-cluster", "path": "vol", "readOnly": True}, ("endpoints", ["a"])),
    "persistentVolumeClaim": ({"claimName": "data", "readOnly": False}, ("claimName", 1)),
    "rbd": ({"monitors": ["10.0.0.1:6789"], "image": "foo", "pool": "kube"}, ("monitors", "10.0.0.1:6789")),
    "flexVolume": ({"driver": "example/lvm", "fsType": "ext4", "options": {"size": "1Gi"},
                    "secretRef": {"name": "s"}}, ("options", ["size"])),
    "cinder": ({"volumeID": "v", "fsType": "ext4"}, ("volumeID", 1)),
    "cephfs": ({"monitors": ["10.0.0.1:6789"], "path": "/", "user": "admin", "secretRef": {"name": "s"}},
               ("user", 1)),
    "flocker": ({"datasetName": "d", "datasetUUID": "u"}, ("datasetUUID", 1)),
    "downwardAPI": ({"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                               {"path": "cpu", "resourceFieldRef": {"containerName": "app",
                                                                    "resource": "limits.cpu", "divisor": "1m"}}],
                     "defaultMode": 420}, ("defaultMode", "420")),
    "fc": ({"targetWWNs": ["500a0982991b8dc5"], "lun": 2, "fsType": "ext4"}, ("targetWWNs", "500a0982991b8dc5")),
    "azureFile": ({"secretName": "s", "shareName": "share", "readOnly": False}, ("shareName", 1)),
    "configMap": ({"name": "cm", "items": [{"key": "game.properties", "path": "game"}], "optional": False},
                  ("optional", "no")),
    "vsphereVolume": ({"volumePath": "[ds] volumes/v.vmdk", "fsType": "ext4", "storagePolicyName": "gold"},
                      ("volumePath", 1)),
    "quobyte": ({"registry": "r:7861", "volume": "v", "user": "u", "group": "g", "tenant": "t"}, ("volume", 1)),
    "azureDisk": ({"diskName": "d", "diskURI": "https://example/d.vhd", "kind": "Managed"}, ("diskName", 1)),
    "photonPersistentDisk": ({"pdID": "p", "fsType": "ext4"}, ("pdID", 1)),
    "projected": ({"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607, "audience": "api"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                      "fieldPath": "metadata.namespace"}}]}},
        {"secret": {"name": "s", "optional": True}},
        {"clusterTrustBundle": {"signerName": "example.com/signer", "labelSelector": {"matchLabels": {"a": "b"}},
                                "path": "bundle.pem"}},
        {"podCertificate": {"signerName": "example.com/signer", "keyType": "ED25519", "maxExpirationSeconds": 86400,
                            "credentialBundlePath": "creds.pem", "userAnnotations": {"a": "b"}}}]},
                  ("sources", {"secret": {"name": "s"}})),
    "portworxVolume": ({"volumeID": "pxvol", "fsType": "ext4"}, ("volumeID", 1)),
    "scaleIO": ({"gateway": "https://gw", "system": "sys", "secretRef": {"name": "s"}, "sslEnabled": True},
                ("sslEnabled", "true")),
    "storageos": ({"volumeName": "v", "volumeNamespace": "default", "secretRef": {"name": "s"}}, ("volumeName", 1)),
    "csi": ({"driver": "inline.storage.kubernetes.io", "volumeAttributes": {"foo": "bar"},
             "nodePublishSecretRef": {"name": "s"}}, ("volumeAttributes", {"foo": 1})),
    "ephemeral": ({"volumeClaimTemplate": {"metadata": {"labels": {"type": "scratch"}}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}},
        ("volumeClaimTemplate", "pvc")),
    "image": ({"reference": "quay.io/crio/artifact:v2", "pullPolicy": "IfNotPresent"}, ("reference", 1)),
}




def _errors(pod: dict) -> list[str]:
    try:
        load_objects([pod], source="p.yaml")
    except ManifestError as err:
        return str(err).splitlines()
    return []


def _cases() -> list:
    out = [pytest.param(pod, where, wrong, id=name) for name, pod, where, wrong in BLOCKS]
    for source, (body, (key, bad)) in VOLUME_SOURCES.items():
        out.append(pytest.param(_vol(source, body), ["spec", "volumes", 0, source],
                                (["spec", "volumes", 0, source, key], bad), id=f"volume-{source}"))
    return out


@pytest.mark.parametrize(("pod", "where", "wrong"), _cases())
def test_a_valid_block_loads_and_keeps_its_values(pod, where, wrong):
    [obj] = load_objects([copy.deepcopy(pod)], source="p.yaml")
    assert isinstance(obj, Pod)
    assert json.loads(json.dumps(obj.model_dump(exclude_unset=True)))["spec"] == pod["spec"]
    if "status" in pod:
        assert json.loads(json.dumps(obj.model_dump(exclude_unset=True)))["status"] == pod["status"]


@pytest.mark.parametrize(("pod", "where", "wrong"), _cases())
def test_a_misspelt_key_is_refused_with_its_path(pod, where, wrong):
    bad = copy.deepcopy(pod)
    at(bad, where)["bogusField"] = 1
    assert _errors(bad) == [f'p.yaml: Pod default/p: {dotted(where)}.bogusField: unknown field "bogusField"']


@pytest.mark.parametrize(("pod", "where", "wrong"), _cases())
def test_a_value_of_the_wrong_type_is_refused_with_its_path(pod, where, wrong):
    path, value = wrong
    bad = copy.deepcopy(pod)
    at(bad, path[:-1])[path[-1]] = value
    [line] = _errors(bad)
    assert line.startswith(f"p.yaml: Pod default/p: {dotted(path)}")


def test_every_volume_source_of_the_api_is_covered():
    from kschedlab.api.volume import VOLUME_SOURCES as MODEL_SOURCES

    assert sorted(MODEL_SOURCES.values()) == sorted(VOLUME_SOURCES)
    assert len(VOLUME_SOURCES) == 30


def test_ulimits_keeps_an_empty_list_apart_from_unset():
    [set_empty] = load_objects([_c(securityContext={"ulimits": []})], source="p.yaml")
    [unset] = load_objects([_c(securityContext={"runAsUser": 1})], source="p.yaml")
    assert set_empty.spec.containers[0].security_context.ulimits == []
    assert unset.spec.containers[0].security_context.ulimits is None


def test_a_deeply_nested_hostile_block_is_refused_at_its_first_unknown_key():
    # nesting a file may carry is bounded by the YAML reader; under a typed block, the first key the
    # API does not have ends the descent
    nested = "{x: " * 500 + "1" + "}" * 500
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
            f"spec: {{containers: [{{name: app, securityContext: {{capabilities: {nested}}}}}]}}\n")
    with pytest.raises(ManifestError) as ei:
        load_text(text, source="p.yaml")
    assert str(ei.value) in ('p.yaml: Pod default/p: spec.containers[0].securityContext.capabilities.x: unknown field "x"',
                             "p.yaml: invalid YAML: nested too deeply to build")


@pytest.mark.parametrize("depth", [300, 600, 990])
def test_a_document_nested_hundreds_of_levels_deep_is_a_manifest_error(depth):
    nested = "{x: " * depth + "1" + "}" * depth
    with pytest.raises(ManifestError, match="nested too deeply to build|unknown field"):
        load_text(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec: {nested}\n", source="p.yaml")


def _pdb(conditions: list) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"disruptionsAllowed": 1, "conditions": conditions}}


def test_pdb_status_conditions_are_typed():
    cond = {"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods", "message": "",
            "observedGeneration": 1, "lastTransitionTime": T}
    [pdb] = load_objects([_pdb([cond])], source="pdb.yaml")
    assert (pdb.status.conditions[0].reason, pdb.status.conditions[0].last_transition_time.year) == ("SufficientPods", 2026)
    with pytest.raises(ManifestError) as ei:
        load_objects([_pdb([{**cond, "lastTransitonTime": T}])], source="pdb.yaml")
    assert str(ei.value) == ('pdb.yaml: PodDisruptionBudget default/web: status.conditions[0].lastTransitonTime: '
                             'unknown field "lastTransitonTime"')
    with pytest.raises(ManifestError, match=r"status\.conditions\[0\]\.observedGeneration: invalid type"):
        load_objects([_pdb([{**cond, "observedGeneration": "1"}])], source="pdb.yaml")


@pytest.mark.parametrize(("since", "pod", "read"), [
    pytest.param("v1.31", _pod({"volumes": [{"name": "m", "image": {"reference": "quay.io/m:v1"}}]}),
                 lambda p: p.spec.volumes[0].image.reference, id="image-volume"),
    pytest.param("v1.31", _pod({"securityContext": {"supplementalGroupsPolicy": "Strict"}}),
                 lambda p: p.spec.security_context.supplemental_groups_policy, id="supplementalGroupsPolicy"),
    pytest.param("v1.31", _pod(status={"containerStatuses": [{"name": "app", "user": {"linux": {"uid": 7}}}]}),
                 lambda p: p.status.container_statuses[0].user.linux.uid, id="containerStatus-user"),
    pytest.param("v1.32", _pod({"securityContext": {"seLinuxChangePolicy": "Recursive"}}),
                 lambda p: p.spec.security_context.se_linux_change_policy, id="seLinuxChangePolicy"),
    pytest.param("v1.33", _pod(status={"containerStatuses": [{"name": "app", "stopSignal": "SIGUSR1"}]}),
                 lambda p: p.status.container_statuses[0].stop_signal, id="containerStatus-stopSignal"),
    pytest.param("v1.34", _c(env=[{"name": "F", "valueFrom": {"fileKeyRef": {"volumeName": "v", "path": "e",
                                                                             "key": "F"}}}]),
                 lambda p: p.spec.containers[0].env[0].value_from.file_key_ref.key, id="env-fileKeyRef"),
    pytest.param("v1.34", _c(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [0]}}]),
                 lambda p: p.spec.containers[0].restart_policy_rules[0].exit_codes.operator, id="restartPolicyRules"),
    pytest.param("v1.34", _vol("projected", {"sources": [{"podCertificate": {"signerName": "a.b/c",
                                                                             "keyType": "ED25519"}}]}),
                 lambda p: p.spec.volumes[0].projected.sources[0].pod_certificate.key_type, id="podCertificate"),
    pytest.param("v1.37", _c(securityContext={"ulimits": [{"name": "nofile", "soft": 1, "hard": 2}]}),
                 lambda p: p.spec.containers[0].security_context.ulimits[0].hard, id="securityContext-ulimits"),
    pytest.param("v1.37", _c(securityContext={"cgroupOptions": {"mountMode": "Writable"}}),
                 lambda p: p.spec.containers[0].security_context.cgroup_options.mount_mode, id="cgroupOptions"),
    pytest.param("v1.37", _pod(status={"nodeAllocatableResourceClaimStatuses": [
        {"resourceClaimName": "c", "mapping": [{"name": "cpu", "quantity": "4"}]}]}),
                 lambda p: str(p.status.node_allocatable_resource_claim_statuses[0].mapping[0].quantity),
                 id="nodeAllocatableResourceClaimStatuses"),
])
def test_fields_newer_than_the_newest_stored_upstream_types_go_load(since, pod, read):
    [obj] = load_objects([pod], source="p.yaml")
    assert read(obj) not in (None, [], "")


def _pv(source: str, body: dict) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], source: body}}


@pytest.mark.parametrize(("source", "body", "typo_at"), [
    ("glusterfs", {"endpoints": "gfs", "path": "vol", "endpointsNamespace": "storage"}, []),
    ("nfs", {"server": "nfs.example.com", "path": "/exports"}, []),
    ("quobyte", {"registry": "r:7861", "volume": "v"}, []),
    ("cephfs", {"monitors": ["10.0.0.1:6789"], "secretRef": {"name": "s", "namespace": "ceph"}}, ["secretRef"]),
    ("fc", {"wwids": ["3600508b400105e210000900000490000"]}, []),
    ("flocker", {"datasetName": "d"}, []),
    ("flexVolume", {"driver": "example/lvm", "secretRef": {"name": "s", "namespace": "x"}}, ["secretRef"]),
    ("azureFile", {"secretName": "s", "shareName": "share", "secretNamespace": "az"}, []),
    ("vsphereVolume", {"volumePath": "[ds] v.vmdk"}, []),
    ("photonPersistentDisk", {"pdID": "p"}, []),
    ("portworxVolume", {"volumeID": "pxvol"}, []),
    ("scaleIO", {"gateway": "https://gw", "system": "sys", "secretRef": {"name": "s", "namespace": "x"}}, ["secretRef"]),
    ("storageos", {"volumeName": "v", "secretRef": {"kind": "Secret", "name": "s", "namespace": "x"}}, ["secretRef"]),
])
def test_persistent_volume_sources_are_typed(source, body, typo_at):
    from kschedlab.api.persistentvolume import PersistentVolume

    [pv] = load_objects([_pv(source, body)], source="pv.yaml")
    assert isinstance(pv, PersistentVolume) and pv.source_name() is not None
    bad = copy.deepcopy(body)
    at(bad, typo_at)["bogusField"] = 1
    with pytest.raises(ManifestError) as ei:
        load_objects([_pv(source, bad)], source="pv.yaml")
    assert str(ei.value) == (f'pv.yaml: PersistentVolume pv: {dotted(["spec", source, *typo_at])}.bogusField: '
                             'unknown field "bogusField"')


def test_a_portworx_volume_translates_to_csi_with_its_volume_id():
    from kschedlab.api.csi_translation import translate_inline, translate_pv

    [pv] = load_objects([_pv("portworxVolume", {"volumeID": "pxvol"})], source="pv.yaml")
    [pod] = load_objects([_vol("portworxVolume", {"volumeID": "inline"})], source="p.yaml")
    assert (translate_pv(pv).volume_handle, translate_inline(pod.spec.volumes[0]).volume_handle) == ("pxvol", "inline")
