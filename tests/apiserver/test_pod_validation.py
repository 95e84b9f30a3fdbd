"""Validation of volumes, env, security contexts, a container's own restartPolicy and ephemeral
containers (kschedlab.apiserver.pod_validation), with upstream's messages and paths; the ported
rows of upstream TestValidateEnv are in data/validate_env.json (left out: SKIPPED-validate_env.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.api.core import Pod, PodSpec
from kschedlab.api.env import EnvVar
from kschedlab.apiserver.apply import Refusal
from kschedlab.apiserver.object_validation import object_errors, refuse_invalid
from kschedlab.apiserver.pod_validation import env_errors, pod_spec_field_errors

ENV_ROWS = json.loads((Path(__file__).parent / "data" / "validate_env.json").read_text())


def test_the_ported_rows_are_well_formed():
    assert len(ENV_ROWS) == 18
    assert len({r["id"] for r in ENV_ROWS}) == len(ENV_ROWS)
    assert all(r["source"].startswith("kubernetes/kubernetes pkg/apis/core/validation/validation_test.go@")
               for r in ENV_ROWS)


@pytest.mark.parametrize("row", ENV_ROWS, ids=[r["id"] for r in ENV_ROWS])
def test_validate_env_upstream_rows(row):
    envs = [EnvVar.model_validate(e) for e in row["env"]]
    errs = [f"{path}: {message}" for path, message in env_errors(envs, ["field"])]
    if row["expectedError"] is None:
        assert errs == []
        return
    assert errs, "expected a failure"
    for err in errs:  # upstream: every error is empty or contains the expected text
        assert row["expectedError"] in err


def _spec_errors(spec: dict) -> list[str]:
    return [f"{p}: {m}" for p, m in pod_spec_field_errors(PodSpec.model_validate(spec), ["spec"])]


def _pod(spec: dict, **meta) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default", **meta},
                               "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec}})


def test_a_volume_with_two_sources_is_refused_at_the_second():
    assert _spec_errors({"volumes": [
        {"name": "a", "configMap": {"name": "cm"}, "emptyDir": {}},
        {"name": "b", "hostPath": {"path": "/x"}, "secret": {"secretName": "s"}, "persistentVolumeClaim": {
            "claimName": "c"}}]}) == [
        "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type",
        "spec.volumes[1].secret: Forbidden: may not specify more than 1 volume type",
        "spec.volumes[1].persistentVolumeClaim: Forbidden: may not specify more than 1 volume type",
    ]


def test_a_volume_without_a_source_is_left_to_defaulting():
    assert _spec_errors({"volumes": [{"name": "scratch"}]}) == []


def test_volume_names_and_required_source_fields():
    assert _spec_errors({"volumes": [
        {"emptyDir": {}}, {"name": "Data_1", "emptyDir": {}}, {"name": "x", "emptyDir": {}},
        {"name": "x", "emptyDir": {}}, {"name": "s", "secret": {}}, {"name": "c", "configMap": {}},
        {"name": "p", "persistentVolumeClaim": {}}, {"name": "n", "nfs": {"path": "exports"}},
        {"name": "e", "emptyDir": {"sizeLimit": "-1Gi"}}]}) == [
        "spec.volumes[0].name: Required value",
        'spec.volumes[1].name: Invalid value: "Data_1": a lowercase RFC 1123 label must consist of lower case '
        "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
        "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'spec.volumes[3].name: Duplicate value: "x"',
        "spec.volumes[4].secret.secretName: Required value",
        "spec.volumes[5].configMap.name: Required value",
        "spec.volumes[6].persistentVolumeClaim.claimName: Required value",
        "spec.volumes[7].nfs.server: Required value",
        'spec.volumes[7].nfs.path: Invalid value: "exports": must be an absolute path',
        "spec.volumes[8].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity",
    ]


@pytest.mark.parametrize("policy", ["Always", "OnFailure", "Never"])
def test_a_regular_container_may_set_its_own_restart_policy(policy):
    assert _spec_errors({"containers": [{"name": "app", "restartPolicy": policy, "restartPolicyRules": [
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}) == []


def test_a_container_restart_policy_outside_the_three_is_refused():
    assert _spec_errors({"initContainers": [{"name": "i", "restartPolicy": "Sometimes"}],
                         "containers": [{"name": "app", "restartPolicy": "always"}]}) == [
        'spec.containers[0].restartPolicy: Unsupported value: "always": supported values: "Always", "OnFailure", "Never"',
        'spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
        '"OnFailure", "Never"',
    ]


def test_ephemeral_containers_cannot_be_set_on_create_but_a_stored_pod_keeps_them():
    eph = {"ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "app"}]}
    assert object_errors(_pod(eph)) == [("spec.ephemeralContainers", "Forbidden: cannot be set on create")]
    assert object_errors(_pod(eph, resourceVersion="42")) == []


def test_ephemeral_containers_are_refused_in_a_pod_template():
    from kschedlab.api.apps import Deployment

    d = Deployment.model_validate({"metadata": {"name": "web", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "containers": [{"name": "app"}], "ephemeralContainers": [{"name": "debug"}]}}}})
    assert ("spec.template.spec.ephemeralContainers",
            "Forbidden: ephemeral containers not allowed in pod template") in object_errors(d)


def test_container_security_context():
    assert _spec_errors({"containers": [{"name": "app", "securityContext": {
        "runAsUser": -1, "procMount": "Masked", "seccompProfile": {"type": "Localhost"},
        "appArmorProfile": {"type": "RuntimeDefault", "localhostProfile": "p"}}},
        {"name": "b", "securityContext": {"seccompProfile": {}, "appArmorProfile": {"type": "Custom"}}}]}) == [
        "spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
        'spec.containers[0].securityContext.procMount: Unsupported value: "Masked": supported values: "Default", '
        '"Unmasked"',
        "spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp "
        "type is Localhost",
        'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "p": can only be set '
        "when AppArmor type is Localhost",
        "spec.containers[1].securityContext.seccompProfile.type: Required value: type is required when seccompProfile "
        "is set",
        'spec.containers[1].securityContext.appArmorProfile.type: Unsupported value: "Custom": supported values: '
        '"Localhost", "RuntimeDefault", "Unconfined"',
    ]


def test_pod_security_context():
    assert _spec_errors({"securityContext": {
        "fsGroup": -5, "supplementalGroups": [10, -1], "fsGroupChangePolicy": "Sometimes",
        "supplementalGroupsPolicy": "Replace", "seLinuxChangePolicy": "Never",
        "sysctls": [{"name": "net.core.somaxconn", "value": "1"}, {"name": "net.core.somaxconn", "value": "2"},
                    {"value": "3"}]}}) == [
        "spec.securityContext.fsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive",
        "spec.securityContext.supplementalGroups[1]: Invalid value: -1: must be between 0 and 2147483647, inclusive",
        'spec.securityContext.sysctls[1].name: Duplicate value: "net.core.somaxconn"',
        "spec.securityContext.sysctls[2].name: Required value",
        'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", '
        '"OnRootMismatch"',
        'spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Replace": supported values: "Merge", '
        '"Strict"',
        'spec.securityContext.seLinuxChangePolicy: Unsupported value: "Never": supported values: "MountOption", '
        '"Recursive"',
    ]


def test_env_resource_field_ref_and_key_selectors():
    assert _spec_errors({"containers": [{"name": "app", "env": [
        {"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}},
        {"name": "B", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}}},
        {"name": "C", "valueFrom": {"resourceFieldRef": {"resource": "requests.hugepages-2Mi", "divisor": "1Mi"}}},
        {"name": "D", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "a/b"}}},
        {"name": "E", "valueFrom": {"secretKeyRef": {"name": "s"}}}]}]}) == [
        'spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported '
        'values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", '
        '"requests.ephemeral-storage", "requests.memory"',
        'spec.containers[0].env[1].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor\'s '
        "values 1m and 1 are supported with the cpu resource",
        'spec.containers[0].env[3].valueFrom.configMapKeyRef.key: Invalid value: "a/b": a valid config key must '
        "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
        "regex used for validation is '[-._a-zA-Z0-9]+')",
        "spec.containers[0].env[4].valueFrom.secretKeyRef.key: Required value",
    ]


def test_an_invalid_pod_is_left_out_and_the_rest_applies():
    bad = _pod({"volumes": [{"name": "v", "emptyDir": {}, "hostPath": {"path": "/"}}]})
    good = _pod({"volumes": [{"name": "v", "emptyDir": {}}]}, name="q")
    refused: list[Refusal] = []
    assert [o.name for o in refuse_invalid([bad, good], refused)] == ["q"]
    assert [str(e) for r in refused for e in r.errors] == [
        "Pod default/p: spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"]


def test_a_mount_names_a_volume_of_the_pod_and_a_path_of_its_own():
    assert _spec_errors({"volumes": [{"name": "cache", "emptyDir": {}}, {"name": "bad", "emptyDir": {},
                                                                        "secret": {"secretName": "s"}}],
                         "containers": [{"name": "app", "volumeMounts": [
                             {"name": "cache", "mountPath": "/c"}, {"name": "scratch", "mountPath": "/c"},
                             {"name": "bad", "mountPath": "/b"}, {"name": "cache"}]}]}) == [
        "spec.volumes[1].secret: Forbidden: may not specify more than 1 volume type",
        'spec.containers[0].volumeMounts[1].name: Not found: "scratch"',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/c": must be unique',
        'spec.containers[0].volumeMounts[2].name: Not found: "bad"',
        "spec.containers[0].volumeMounts[3].mountPath: Required value",
    ]


def test_a_statefulset_template_may_mount_its_claim_templates():
    from kschedlab.api.apps import StatefulSet

    def sts(claim: str) -> StatefulSet:
        return StatefulSet.model_validate({"metadata": {"name": "db", "namespace": "default"}, "spec": {
            "selector": {"matchLabels": {"app": "db"}}, "volumeClaimTemplates": [{"metadata": {"name": claim}}],
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [
                {"name": "db", "volumeMounts": [{"name": "data", "mountPath": "/var/lib/db"}]}]}}}})

    assert object_errors(sts("data")) == []
    assert object_errors(sts("other")) == [
        ("spec.template.spec.containers[0].volumeMounts[0].name", 'Not found: "data"')]


def test_a_localhost_seccomp_profile_is_a_relative_path_without_backsteps():
    assert _spec_errors({"securityContext": {"seccompProfile": {"type": "Localhost",
                                                                "localhostProfile": "/etc/../p.json"}}}) == [
        'spec.securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/../p.json": must be a relative path',
        "spec.securityContext.seccompProfile.localhostProfile: Invalid value: \"/etc/../p.json\": must not contain '..'",
    ]


def test_host_path_and_image_volumes():
    assert _spec_errors({"volumes": [
        {"name": "a", "hostPath": {"path": "/var/../etc", "type": "Dir"}}, {"name": "b", "hostPath": {"path": ""}},
        {"name": "c", "hostPath": {"path": "/run/x.sock", "type": "Socket"}},
        {"name": "d", "image": {"pullPolicy": "Sometimes"}}]}) == [
        "spec.volumes[0].hostPath.path: Invalid value: \"/var/../etc\": must not contain '..'",
        'spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", '
        '"Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
        "spec.volumes[1].hostPath.path: Required value",
        "spec.volumes[3].image.reference: Required value",
        'spec.volumes[3].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
        '"IfNotPresent", "Never"',
    ]


def test_configmap_secret_and_downward_api_files():
    # validateSecretVolumeSource / validateConfigMapVolumeSource / validateKeyToPath /
    # validateDownwardAPIVolumeSource; a downward API file's errors are at the source's path (upstream
    # does not index the item)
    assert _spec_errors({"volumes": [
        {"name": "s", "secret": {"secretName": "s", "defaultMode": 512, "items": [
            {"path": "a"}, {"key": "k", "path": "/etc/k"}, {"key": "k", "path": "a/../../b", "mode": -1},
            {"key": "k", "path": "..data"}]}},
        {"name": "c", "configMap": {"name": "c", "items": [{"key": "k", "path": "ok/k", "mode": 0o644}]}},
        {"name": "d", "downwardAPI": {"defaultMode": 0o1000, "items": [
            {"path": "none"}, {"path": "node", "fieldRef": {"fieldPath": "spec.nodeName"}},
            {"path": "cpu", "resourceFieldRef": {"resource": "limits.cpu"}},
            {"path": "both", "fieldRef": {"fieldPath": "metadata.labels"},
             "resourceFieldRef": {"containerName": "app", "resource": "limits.cpu"}},
            {"path": "x", "fieldRef": {"fieldPath": "metadata.labels['Bad Key']"}},
            {"path": "y", "fieldRef": {"fieldPath": "status.phase2"}}]}}]}) == [
        "spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both "
        "inclusive",
        "spec.volumes[0].secret.items[0].key: Required value",
        'spec.volumes[0].secret.items[1].path: Invalid value: "/etc/k": must be a relative path',
        'spec.volumes[0].secret.items[2].path: Invalid value: "a/../../b": must not contain \'..\'',
        "spec.volumes[0].secret.items[2].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both "
        "inclusive",
        'spec.volumes[0].secret.items[3].path: Invalid value: "..data": must not start with \'..\'',
        "spec.volumes[2].downwardAPI.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), "
        "both inclusive",
        "spec.volumes[2].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required",
        'spec.volumes[2].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: '
        '"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
        "spec.volumes[2].downwardAPI.resourceFieldRef.containerName: Required value",
        'spec.volumes[2].downwardAPI: Invalid value: "resource": fieldRef and resourceFieldRef can not be specified '
        "simultaneously",
        'spec.volumes[2].downwardAPI.fieldRef: Invalid value: "Bad Key": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.volumes[2].downwardAPI.fieldRef.fieldPath: Invalid value: "status.phase2": error converting fieldPath: '
        "field label not supported: status.phase2",
    ]


def test_projected_volume_sources():
    # validateProjectionSources: one kind per source, no path twice, the token's lifetime and path
    # (reported at the volume's own path, as upstream does)
    assert _spec_errors({"volumes": [{"name": "p", "projected": {"defaultMode": -1, "sources": [
        {"secret": {"name": "s", "items": [{"key": "a", "path": "x"}]}},
        {"configMap": {"name": "c", "items": [{"key": "b", "path": "x"}]},
         "downwardAPI": {"items": [{"path": "x", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"serviceAccountToken": {"expirationSeconds": 60}},
        {"serviceAccountToken": {"path": "../token", "expirationSeconds": 5000000000}},
        {"clusterTrustBundle": {"path": "ca.pem"}}, {"clusterTrustBundle": {"signerName": "", "path": "ca.pem"}},
        {"serviceAccountToken": {"path": "token"}}]}}]}) == [
        "spec.volumes[0].projected.defaultMode: Invalid value: -1: must be a number between 0 and 0777 (octal), both "
        "inclusive",
        'spec.volumes[0].projected: Invalid value: "c": conflicting duplicate paths',
        'spec.volumes[0].projected: Invalid value: "x": conflicting duplicate paths',
        "spec.volumes[0].projected.sources[1]: Forbidden: may not specify more than 1 volume type",
        "spec.volumes[0].projected.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 60: may not "
        "specify a duration less than 10 minutes",
        "spec.volumes[0].projected.path: Required value",
        "spec.volumes[0].projected.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 5000000000: may "
        "not specify a duration larger than 2^32 seconds",
        'spec.volumes[0].projected.path: Invalid value: "../token": must not contain \'..\'',
        "spec.volumes[0].projected.sources[4].clusterTrustBundlePEM: Required value: either name or signerName must "
        "be specified",
        "spec.volumes[0].projected.sources[5].clusterTrustBundlePEM.signerName: Required value: must be a valid "
        "signer name",
        "spec.volumes[0].projected.sources[5].clusterTrustBundlePEM.signerName: Required value",  # (ValidateSignerName's)
        'spec.volumes[0].projected: Invalid value: "ca.pem": conflicting duplicate paths',
    ]


CTB = "spec.volumes[0].projected.sources[0].clusterTrustBundlePEM"
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.mark.parametrize("bundle, errors", [
    ({"name": "example.com:signer:v1"}, []),
    ({"name": "plain-bundle"}, []),
    ({"signerName": "example.com/signer", "labelSelector": {"matchLabels": {"tier": "root"}}}, []),
    # both: the bad value is the internal struct as Go's %#v prints it (set pointers as addresses)
    ({"name": "a", "signerName": "example.com/s"},
     [f"{CTB}: Invalid value: core.ClusterTrustBundleProjection{{Name:(*string)(0xc000010000), "
      "SignerName:(*string)(0xc000010020), LabelSelector:(*v1.LabelSelector)(nil), Optional:(*bool)(nil), "
      'Path:"ca.pem"}: only one of name and signerName may be used']),
    ({"name": ""}, [f"{CTB}.name: Required value: must be a valid object name",
                    f'{CTB}.name: Invalid value: "": not a valid clustertrustbundlename: {SUBDOMAIN}']),
    ({"name": "Bundle"}, [f'{CTB}.name: Invalid value: "Bundle": not a valid clustertrustbundlename: {SUBDOMAIN}']),
    ({"name": "example.com/s:v1"},
     [f'{CTB}.name: Invalid value: "example.com/s:v1": not a valid clustertrustbundlename: ClusterTrustBundle for '
      "signerName example.com/s must be named with prefix example.com:s:"]),
    ({"name": "b", "labelSelector": {"matchLabels": {"a": "b"}}},
     [f'{CTB}.labelSelector: Invalid value: v1.LabelSelector{{MatchLabels:map[string]string{{"a":"b"}}, '
      "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: labelSelector must be unset if name is specified"]),
    ({"signerName": "example/s"},
     [f'{CTB}.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']),
    ({"signerName": "example.com/s/t"},
     [f'{CTB}.signerName: Invalid value: "example.com/s/t": must be a fully qualified domain and path of the form '
      "'example.com/signer-name'"]),
    ({"signerName": "example.com/s", "labelSelector": {"matchExpressions": [{"key": "k", "operator": "Has"}]}},
     [f'{CTB}.labelSelector.matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator']),
])
def test_cluster_trust_bundle_sources(bundle, errors):
    # validateProjectionSources' clusterTrustBundle case, with ValidateSignerName,
    # ValidateClusterTrustBundleName and ValidateLabelSelector
    assert _spec_errors({"volumes": [{"name": "v", "projected": {"sources": [
        {"clusterTrustBundle": {**bundle, "path": "ca.pem"}}]}}]}) == errors


SYSCTL_REGEX = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"


@pytest.mark.parametrize("name", ["net.foo.bar", "kernel.shmmax", "net.ipv4.conf.enp3s0/200.forwarding",
                                  "net/ipv4/conf/enp3s0.200/forwarding", "a" * 253])
def test_sysctl_names_that_pass(name):
    assert _spec_errors({"securityContext": {"sysctls": [{"name": name, "value": "1"}]}}) == []


@pytest.mark.parametrize("name", ["i..nvalid", "_invalid", "invalid/", "invalid/.", "kernel/shmmax.", "Kernel.x",
                                  "net.core.somaxconn\n", "a" * 254])
def test_sysctl_names_refused(name):
    from kschedlab.apiserver.field import bad_value
    assert _spec_errors({"securityContext": {"sysctls": [{"name": name, "value": "1"}]}}) == [
        f"spec.securityContext.sysctls[0].name: Invalid value: {bad_value(name)}: must have at most 253 characters "
        f"and match regex {SYSCTL_REGEX}"]


def test_namespaced_sysctls_of_a_pod_sharing_the_host_namespace():
    # ValidateHostSysctl (message as a captured `kubectl apply` shows it); slashes read as dots
    spec = {"hostNetwork": True, "hostIPC": True, "securityContext": {"sysctls": [
        {"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"}, {"name": "kernel.shm_rmid_forced", "value": "1"},
        {"name": "fs/mqueue/msg_max", "value": "10"}, {"name": "kernel.msgmax", "value": "1"},
        {"name": "kernel.shmmaxx", "value": "1"}, {"name": "vm.swappiness", "value": "1"}]}}
    assert _spec_errors(spec) == [
        'spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_unprivileged_port_start": may not be '
        "specified when 'hostNetwork' is true",
        'spec.securityContext.sysctls[1].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when '
        "'hostIPC' is true",
        'spec.securityContext.sysctls[2].name: Invalid value: "fs/mqueue/msg_max": may not be specified when '
        "'hostIPC' is true",
        'spec.securityContext.sysctls[3].name: Invalid value: "kernel.msgmax": may not be specified when '
        "'hostIPC' is true",
    ]
    assert _spec_errors({**spec, "hostNetwork": False, "hostIPC": False}) == []


def test_share_process_namespace_with_host_pid():
    # reported at the internal pod's securityContext path, where the API server keeps both fields
    assert _spec_errors({"shareProcessNamespace": True, "hostPID": True}) == [
        "spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot "
        "both be enabled"]
    assert _spec_errors({"shareProcessNamespace": True}) == []


def test_a_trust_bundle_selector_operator_is_reported_once_at_upstreams_path():
    # the selector is ValidateLabelSelector's (at clusterTrustBundlePEM), not also the enum walk's
    pod = _pod({"containers": [{"name": "app", "image": "nginx"}], "volumes": [{"name": "v", "projected": {
        "sources": [{"clusterTrustBundle": {"signerName": "example.com/s", "path": "ca.pem", "labelSelector": {
            "matchExpressions": [{"key": "k", "operator": "Has"}]}}}]}}]})
    assert [m for _, m in object_errors(pod)] == ['Invalid value: "Has": not a valid selector operator']
    assert [p for p, _ in object_errors(pod)] == [
        f"{CTB}.labelSelector.matchExpressions[0].operator"]
