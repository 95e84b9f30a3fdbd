"""ImageLocality: prefer nodes that already hold the pod's container images,
weighted by how widely each image is spread across the cluster."""

import numpy as np

from kschedlab.api.core import normalize_image_name
from kschedlab.framework.interface import MAX_NODE_SCORE, Plugin, SignFragment, register
from kschedlab.framework.signers import IMAGE_NAMES_SIGNER_NAME, image_names_signer

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def calculate_priority(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """Clamp the summed image scores into [23 MiB, 1000 MiB x containers] and scale to 0..100.

    >>> calculate_priority(np.array([0, 500 * MB, 5000 * MB]), 1).tolist()
    [0, 48, 100]
    """
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if max_threshold <= MIN_THRESHOLD:
        return np.zeros(len(sum_scores), np.int64)
    clamped = np.clip(sum_scores, MIN_THRESHOLD, max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


@register
class ImageLocality(Plugin):
    name = NAME

    def sign_pod(self, pod_info):
        """Signature: the normalized image names of all containers."""
        return [SignFragment(IMAGE_NAMES_SIGNER_NAME, image_names_signer(pod_info.pod))], None

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        if not snapshot.image_nodes:  # no node reports an image: every sum is 0, below the threshold
            return np.zeros(len(rows), np.int64)
        spec = pod_info.pod.spec
        containers = [*spec.init_containers, *spec.containers]
        total_nodes = snapshot.num_nodes
        sums = np.zeros(len(rows), np.int64)
        for container in containers:
            image = normalize_image_name(container.image or "")
            num_nodes = snapshot.image_nodes.get(image, 0)
            if not num_nodes:
                continue
            spread = num_nodes / total_nodes
            for i, row in enumerate(rows.tolist()):
                size = snapshot.images[row].get(image)
                if size is not None:
                    sums[i] += int(float(size) * spread)
        return calculate_priority(sums, len(containers))
