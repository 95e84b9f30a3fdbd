"""``securityContext`` of a container and of a pod (``core/v1``): users and groups, Linux
capabilities, SELinux, seccomp and AppArmor profiles, Windows options, sysctls.

Typed from the ``core/v1`` API of v1.36, with the v1.37 container fields the node declared
features registry reads (``ulimits``, ``cgroupOptions``: :mod:`kschedlab.api.node_declared_features`).
``ulimits`` keeps nil apart from empty (``[]`` is set), as the feature inference tells them apart.

>>> sc = SecurityContext.model_validate({"capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
...     "seccompProfile": {"type": "RuntimeDefault"}})
>>> sc.capabilities.drop, sc.seccomp_profile.type
(['ALL'], 'RuntimeDefault')
>>> PodSecurityContext.model_validate({"sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}).sysctls[0].name
'net.core.somaxconn'
"""

from __future__ import annotations

from pydantic import Field

from ._base import K8sModel

__all__ = [
    "Capabilities",
    "SELinuxOptions",
    "WindowsSecurityContextOptions",
    "SeccompProfile",
    "AppArmorProfile",
    "ContainerUlimit",
    "CgroupOptions",
    "SecurityContext",
    "Sysctl",
    "PodSecurityContext",
]


class Capabilities(K8sModel):
    """POSIX capabilities added to or dropped from the container's default set."""

    add: list[str] = Field(default_factory=list)
    drop: list[str] = Field(default_factory=list)


class SELinuxOptions(K8sModel):
    """The SELinux label: ``user``, ``role``, ``type``, ``level``."""

    user: str | None = None
    role: str | None = None
    type: str | None = None
    level: str | None = None


class WindowsSecurityContextOptions(K8sModel):
    """Windows-only options: GMSA credential spec, the user name, HostProcess containers."""

    gmsa_credential_spec_name: str | None = None
    gmsa_credential_spec: str | None = None
    run_as_user_name: str | None = None
    host_process: bool | None = None


class SeccompProfile(K8sModel):
    """``seccompProfile``: ``type`` Localhost / RuntimeDefault / Unconfined (and the local file)."""

    type: str | None = None
    localhost_profile: str | None = None


class AppArmorProfile(K8sModel):
    """``appArmorProfile``: ``type`` Localhost / RuntimeDefault / Unconfined (and the local profile)."""

    type: str | None = None
    localhost_profile: str | None = None


class ContainerUlimit(K8sModel):
    """One resource limit of ``securityContext.ulimits`` (``nofile``, ``nproc``, ...)."""

    name: str | None = None
    soft: int | None = None
    hard: int | None = None


class CgroupOptions(K8sModel):
    """``securityContext.cgroupOptions``: how the container's cgroup filesystem is mounted."""

    mount_mode: str | None = None


class SecurityContext(K8sModel):
    """A container's ``securityContext``; set fields override the pod's."""

    capabilities: Capabilities | None = None
    privileged: bool | None = None
    se_linux_options: SELinuxOptions | None = Field(default=None, alias="seLinuxOptions")
    windows_options: WindowsSecurityContextOptions | None = None
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_non_root: bool | None = None
    read_only_root_filesystem: bool | None = None
    allow_privilege_escalation: bool | None = None
    proc_mount: str | None = None
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    ulimits: list[ContainerUlimit] | None = None
    cgroup_options: CgroupOptions | None = None


class Sysctl(K8sModel):
    """A namespaced kernel parameter set for the pod."""

    name: str | None = None
    value: str | None = None


class PodSecurityContext(K8sModel):
    """``spec.securityContext``: defaults for every container and the pod's volumes."""

    se_linux_options: SELinuxOptions | None = Field(default=None, alias="seLinuxOptions")
    windows_options: WindowsSecurityContextOptions | None = None
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_non_root: bool | None = None
    supplemental_groups: list[int] = Field(default_factory=list)
    supplemental_groups_policy: str | None = None
    fs_group: int | None = None
    sysctls: list[Sysctl] = Field(default_factory=list)
    fs_group_change_policy: str | None = None
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    se_linux_change_policy: str | None = Field(default=None, alias="seLinuxChangePolicy")
