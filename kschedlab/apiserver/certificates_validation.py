"""Names of the certificates API (``pkg/apis/certificates/validation``): a signer's name and a
ClusterTrustBundle's, as a pod's ``clusterTrustBundle`` projection names them.

>>> signer_name_errors("example.com/my-signer", "p")
[]
>>> for path, message in signer_name_errors("localhost/a/b", "p") + signer_name_errors("localhost/x", "p"):
...     print(f"{path}: {message}")
p: Invalid value: "localhost/a/b": must be a fully qualified domain and path of the form 'example.com/signer-name'
p: Invalid value: "localhost": should be a domain with at least two segments separated by dots
>>> cluster_trust_bundle_name_errors("example.com:my-signer:v1"), cluster_trust_bundle_name_errors("a:b")
([], [])
>>> cluster_trust_bundle_name_errors("example.com/x:v1")
['ClusterTrustBundle for signerName example.com/x must be named with prefix example.com:x:']
>>> cluster_trust_bundle_name_errors("Bundle")[0][:44]
'a lowercase RFC 1123 subdomain must consist '

"""

from __future__ import annotations

from typing import Callable

from ..api.validation import dns1123_label_errors, dns1123_subdomain_errors
from .field import invalid, required, too_long

Errors = list[tuple[str, str]]

_DOMAIN_MAX = 253  # a DNS subdomain's length
_PATH_MAX = 253 + 63 + 1  # a namespace (DNS label), a dot and a resource name (DNS subdomain)
_SIGNER_NAME_MAX = _DOMAIN_MAX + _PATH_MAX + 1


def signer_name_errors(signer: str, path: str) -> Errors:
    """``ValidateSignerName``: ``<domain>/<path>``, the domain DNS labels joined by at least one dot,
    the path DNS subdomains joined by dots; only the first bad label of each part is reported."""
    if not signer:
        return [required(path)]
    parts = signer.split("/")
    if len(parts) != 2:
        return [invalid(path, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'")]
    domain, rest = parts
    errs: Errors = []
    if len(domain) > _DOMAIN_MAX:
        errs.append(too_long(path, _DOMAIN_MAX))
    labels = domain.split(".")
    errs += _first_bad(labels, domain, path, dns1123_label_errors)
    if len(labels) < 2:
        errs.append(invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    errs += _first_bad(rest.split("."), rest, path, dns1123_subdomain_errors)
    if len(signer) > _SIGNER_NAME_MAX:
        errs.append(too_long(path, _SIGNER_NAME_MAX))
    return errs


def _first_bad(labels: list[str], shown: str, path: str, check: Callable[[str], list[str]]) -> Errors:
    for label in labels:
        msgs = check(label)
        if msgs:
            return [invalid(path, shown, f'validating label "{label}": {msg}') for msg in msgs]
    return []


def cluster_trust_bundle_name_errors(name: str) -> list[str]:
    """``ValidateClusterTrustBundleName`` for the signer a name implies: a name with a colon
    belongs to the signer before its last colon (colons read as slashes) and must start with that
    signer's prefix, the rest a DNS subdomain; a name without one is a DNS subdomain itself."""
    cut = name.rfind(":")
    if cut == -1:
        return dns1123_subdomain_errors(name)
    signer = name[:cut].replace(":", "/")
    prefix = signer.replace("/", ":") + ":"
    if not name.startswith(prefix):  # (a slash before the last colon)
        return [f"ClusterTrustBundle for signerName {signer} must be named with prefix {prefix}"]
    return dns1123_subdomain_errors(name[len(prefix):])
