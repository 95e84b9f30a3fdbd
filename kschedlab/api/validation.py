"""Content checks of apimachinery's ``util/validation`` with its exact wording
(``RegexError`` included): DNS-1123 labels and subdomains, qualified names, label values.

>>> qualified_name_errors("example.com/MyName"), label_value_errors("")
([], [])
>>> dns1123_subdomain_errors("ok.example"), len(dns1123_subdomain_errors("Bad_Name"))
([], 1)
"""

from __future__ import annotations

import re

__all__ = ["regex_error", "dns1123_label_errors", "dns1123_subdomain_errors", "qualified_name_errors",
           "label_value_errors"]

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + r"(\." + DNS1123_LABEL_FMT + ")*"
DNS1123_LABEL_ERR = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                     "and must start and end with an alphanumeric character")
DNS1123_SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                         "'-' or '.', and must start and end with an alphanumeric character")
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                      "with an alphanumeric character")
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                   "or '.', and must start and end with an alphanumeric character")

_LABEL_RE = re.compile(DNS1123_LABEL_FMT + r"\Z")
_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT + r"\Z")
_QUALIFIED_RE = re.compile(QUALIFIED_NAME_FMT + r"\Z")
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT + r"\Z")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``validation.RegexError`` (its odd "',  or '" spacing included).

    >>> regex_error("bad", "[a-z]+", "abc", "xyz")
    "bad (e.g. 'abc',  or 'xyz', regex used for validation is '[a-z]+')"
    """
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    out = msg + " (e.g. "
    for i, example in enumerate(examples):
        out += (" or " if i else "") + f"'{example}', "
    return out + f"regex used for validation is '{fmt}')"


def dns1123_label_errors(value: str) -> list[str]:
    """``IsDNS1123Label`` (format ``k8s-short-name``)."""
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_RE.match(value):
        errs.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain`` (format ``k8s-long-name``)."""
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _SUBDOMAIN_RE.match(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def qualified_name_errors(value: str) -> list[str]:
    """``IsQualifiedName`` (format ``k8s-label-key``): an optional DNS subdomain prefix and a name."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + e for e in dns1123_subdomain_errors(prefix))
    else:
        return ["a qualified name " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                  "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if not _QUALIFIED_RE.match(name):
        errs.append("name part " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name",
                                               "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """``IsValidLabelValue``."""
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs
