"""The kubelet's image garbage collection (upstream ``pkg/kubelet/images/image_gc_manager.go``):
which unused images it deletes, in which order, and how much.

The manager keeps a record per image: its size, when it was first detected, when it was
last seen in use by a container (running or dead: the runtime lists both), and whether the
runtime pinned it (the sandbox image). Two ways in:

* :meth:`ImageGCManager.garbage_collect` -- the periodic collection (every 5 min): first,
  with ``imageMaximumGCAge`` set, every unused image not used for longer than that (once the
  kubelet has run that long); then, when the image filesystem's usage
  ``100 - available*100/capacity`` (integer) is at least ``imageGCHighThresholdPercent`` (85),
  it frees ``capacity*(100-low)/100 - available`` bytes -- down to
  ``imageGCLowThresholdPercent`` (80) -- and reports an error when it could not.
* :meth:`ImageGCManager.delete_unused_images` -- the eviction manager's node-level reclaim
  (``DeleteUnusedImages``): every eligible unused image, however much that is. The eviction
  manager then measures again and evicts no pod when every threshold is clear by its
  ``evictionMinimumReclaim``.

Eligible: not in use, not pinned, detected at least ``imageMinimumGCAge`` (2 min) ago. Order:
least recently used first, ties broken by the earlier detection.

Times are seconds on the caller's clock; ``None`` is Go's zero time (before everything).

>>> gc = ImageGCManager()
>>> images = [Image("redis", 100), Image("nginx", 300), Image("pause", 1, pinned=True)]
>>> _ = gc.detect_images(images, in_use=set(), now=None)    # known before the kubelet started
>>> _ = gc.detect_images(images, in_use={"nginx"}, now=600.0)
>>> gc.delete_unused_images(images, in_use=set(), now=900.0).removed
['redis', 'nginx']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

__all__ = ["Image", "ImageRecord", "ImageGCPolicy", "GCResult", "ImageGCManager", "IMAGE_GC_PERIOD",
           "IMAGE_DETECT_PERIOD", "DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT", "DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT",
           "DEFAULT_IMAGE_MINIMUM_GC_AGE", "image_gc_policy"]

#: seconds between two periodic image collections (upstream ``ImageGCPeriod``)
IMAGE_GC_PERIOD = 300.0
#: seconds between two image detections (the manager's ``Start`` loop)
IMAGE_DETECT_PERIOD = 300.0
DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT = 85
DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT = 80
#: ``imageMinimumGCAge`` default, seconds (2m)
DEFAULT_IMAGE_MINIMUM_GC_AGE = 120.0


@dataclass(frozen=True)
class Image:
    """An image the runtime lists (``id``: here its name), its size in bytes, pinned or not."""

    id: str
    size: int
    pinned: bool = False


@dataclass
class ImageRecord:
    """What the manager remembers of one image."""

    id: str
    size: int
    first_detected: float | None
    last_used: float | None = None
    pinned: bool = False


@dataclass(frozen=True)
class ImageGCPolicy:
    """``imageGCHighThresholdPercent`` / ``imageGCLowThresholdPercent`` and the two ages
    (seconds; ``max_age`` 0 = no maximum)."""

    high_threshold_percent: int = DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT
    low_threshold_percent: int = DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT
    min_age: float = DEFAULT_IMAGE_MINIMUM_GC_AGE
    max_age: float = 0.0

    def validate(self) -> list[str]:
        """Upstream ``NewImageGCManager``'s refusals (empty: valid).

        >>> ImageGCPolicy(high_threshold_percent=70, low_threshold_percent=80).validate()
        ['LowThresholdPercent 80 can not be higher than HighThresholdPercent 70']
        """
        errs = []
        if not 0 <= self.high_threshold_percent <= 100:
            errs.append(f"invalid HighThresholdPercent {self.high_threshold_percent}, must be in range [0-100]")
        if not 0 <= self.low_threshold_percent <= 100:
            errs.append(f"invalid LowThresholdPercent {self.low_threshold_percent}, must be in range [0-100]")
        if not errs and self.low_threshold_percent > self.high_threshold_percent:
            errs.append(f"LowThresholdPercent {self.low_threshold_percent} can not be higher than "
                        f"HighThresholdPercent {self.high_threshold_percent}")
        return errs


def image_gc_policy(config) -> ImageGCPolicy:
    """The image GC policy of a :class:`~kschedlab.api.kubeletconfig.KubeletConfiguration`
    (``imageGCHighThresholdPercent``, ``imageGCLowThresholdPercent``, ``imageMinimumGCAge``,
    ``imageMaximumGCAge``; unset: the v1beta1 defaults 85, 80, 2m, 0). Raises ValueError
    with upstream's text when the policy is invalid.

    >>> from kschedlab.api.kubeletconfig import KubeletConfiguration
    >>> image_gc_policy(KubeletConfiguration.model_validate({"imageGCHighThresholdPercent": 90,
    ...                                                       "imageMinimumGCAge": "5m"}))
    ImageGCPolicy(high_threshold_percent=90, low_threshold_percent=80, min_age=300.0, max_age=0.0)
    """
    from .gotypes import SECOND, parse_duration

    def get(name, default):
        v = getattr(config, name, None) if config is not None else None
        return default if v is None else v

    def dur(name, default: float) -> float:
        v = get(name, None)
        return default if v is None else parse_duration(str(v)) / SECOND

    policy = ImageGCPolicy(int(get("imageGCHighThresholdPercent", DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT)),
                           int(get("imageGCLowThresholdPercent", DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT)),
                           dur("imageMinimumGCAge", DEFAULT_IMAGE_MINIMUM_GC_AGE), dur("imageMaximumGCAge", 0.0))
    errs = policy.validate()
    if errs:
        raise ValueError("; ".join(errs))
    return policy


@dataclass
class GCResult:
    """What one collection did: the images removed (in order), the bytes freed, and the
    error upstream would return (None: none)."""

    removed: list[str] = field(default_factory=list)
    freed: int = 0
    error: str | None = None
    #: bytes the collection set out to free (None: as much as it could)
    wanted: int | None = None


def _before(a: float | None, b: float | None) -> bool:
    """Go ``a.Before(b)`` with None as the zero time."""
    if a is None:
        return b is not None
    return b is not None and a < b


class ImageGCManager:
    """One node's image garbage collector (see the module docstring)."""

    def __init__(self, policy: ImageGCPolicy | None = None) -> None:
        self.policy = policy or ImageGCPolicy()
        errs = self.policy.validate()
        if errs:
            raise ValueError("; ".join(errs))
        self.records: dict[str, ImageRecord] = {}

    def detect_images(self, images: Iterable[Image], in_use: set[str], now: float | None,
                      detect_time: float | None = ...) -> set[str]:
        """Record the images the runtime lists at ``now``: new ones as detected at
        ``detect_time`` (default ``now``), those ``in_use`` as used now; forget images the
        runtime no longer has. Returns ``in_use``."""
        detected = now if detect_time is ... else detect_time
        current = set()
        for image in images:
            current.add(image.id)
            rec = self.records.get(image.id)
            if rec is None:
                rec = self.records[image.id] = ImageRecord(image.id, image.size, detected)
            if image.id in in_use:
                rec.last_used = now
            rec.size, rec.pinned = image.size, image.pinned
        for gone in [i for i in self.records if i not in current]:
            del self.records[gone]
        return set(in_use)

    def images_in_eviction_order(self, images: Iterable[Image], in_use: set[str], now: float | None) -> list[ImageRecord]:
        """The unused, unpinned images, least recently used first (ties: detected earlier first)."""
        used = self.detect_images(images, in_use, now)
        out = [r for r in self.records.values() if r.id not in used and not r.pinned]

        def key(r: ImageRecord):
            return (r.last_used is not None, r.last_used or 0.0, r.first_detected is not None, r.first_detected or 0.0)

        return sorted(out, key=key)

    def _free_space(self, bytes_to_free: int | None, now: float | None, ordered: Sequence[ImageRecord],
                    result: GCResult) -> None:
        for rec in ordered:
            if not _before(rec.last_used, now):  # used at or after now
                continue
            age = float("inf") if rec.first_detected is None or now is None else now - rec.first_detected
            if age < self.policy.min_age:
                continue
            self.records.pop(rec.id, None)
            result.removed.append(rec.id)
            result.freed += rec.size
            if bytes_to_free is not None and result.freed >= bytes_to_free:
                break

    def free_space(self, images: Iterable[Image], in_use: set[str], bytes_to_free: int, now: float | None
                   ) -> GCResult:
        """``freeSpace``: eligible unused images in eviction order until ``bytes_to_free`` are freed."""
        result = GCResult(wanted=bytes_to_free)
        self._free_space(bytes_to_free, now, self.images_in_eviction_order(images, in_use, now), result)
        return result

    def delete_unused_images(self, images: Iterable[Image], in_use: set[str], now: float | None) -> GCResult:
        """``DeleteUnusedImages``: free every eligible unused image (the eviction manager's reclaim)."""
        result = GCResult()
        self._free_space(None, now, self.images_in_eviction_order(images, in_use, now), result)
        return result

    def garbage_collect(self, images: Iterable[Image], in_use: set[str], now: float, capacity: int, available: int,
                        began_gc: float = 0.0) -> GCResult:
        """The periodic collection on an image filesystem of ``capacity`` bytes with
        ``available`` free (``began_gc``: when the kubelet started collecting)."""
        images = list(images)
        result = GCResult()
        ordered = self.images_in_eviction_order(images, in_use, now)
        if self.policy.max_age and now - began_gc > self.policy.max_age:
            keep = []
            for rec in ordered:
                unused_for = float("inf") if rec.last_used is None else now - rec.last_used
                if unused_for > self.policy.max_age:
                    self.records.pop(rec.id, None)
                    result.removed.append(rec.id)
                    result.freed += rec.size
                else:
                    keep.append(rec)
            ordered = keep
            available += result.freed
        available = min(available, capacity)
        if capacity == 0:
            result.error = "invalid capacity 0 on image filesystem"
            return result
        usage_percent = 100 - available * 100 // capacity
        if usage_percent >= self.policy.high_threshold_percent:
            to_free = capacity * (100 - self.policy.low_threshold_percent) // 100 - available
            result.wanted = to_free
            by_age = result.freed
            result.freed = 0
            self._free_space(to_free, now, ordered, result)
            freed = result.freed
            result.freed += by_age
            if freed < to_free:
                result.error = (f"Failed to garbage collect required amount of images. Attempted to free {to_free} "
                                f"bytes, but only found {freed} bytes eligible to free.")
        return result
