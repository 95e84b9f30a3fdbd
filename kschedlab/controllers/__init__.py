"""What the controllers of kube-controller-manager make from the objects: ReplicaSets and pods of
Deployments, pods of ReplicaSets, StatefulSets, Jobs and DaemonSets, the claims of StatefulSets and
ephemeral volumes, owner references; and :func:`~kschedlab.controllers.manifests.load_manifests`,
the one call from manifest files to the objects a cluster holds.

Upstream keeps this in ``pkg/controller``. The object models are in :mod:`kschedlab.api`; what the
API server does on create is in :mod:`kschedlab.apiserver`.
"""
