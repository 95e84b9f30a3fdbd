"""Label keys and values as apimachinery validates them
(``IsQualifiedName``, ``IsValidLabelValue``).

>>> is_qualified_name("example.com/fips"), is_qualified_name("invalid/label/key")
(True, False)
>>> is_valid_label_value(""), is_valid_label_value("-bad")
(True, False)
"""

from __future__ import annotations

import re

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")


def is_qualified_name(value: str) -> bool:
    """``[prefix/]name``: name <= 63 chars of [A-Za-z0-9_.-] starting and ending alphanumeric,
    prefix a DNS-1123 subdomain of <= 253 chars."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(_NAME.match(name))


def is_valid_label_value(value: str) -> bool:
    return value == "" or (len(value) <= 63 and bool(_NAME.match(value)))
