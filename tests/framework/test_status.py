"""``Status`` writes its fields through their slots (its own ``__new__``, for the cost of a status made
per node; a plain Success is one shared object) and stays the frozen dataclass it was: the same fields, defaults, normalised reasons, equality,
hash, copies and pickling, and no field a plugin can change."""

import copy
import dataclasses
import pickle

import pytest

from kschedlab.framework.status import SKIP, SUCCESS, Code, Status


def test_fields_defaults_and_keywords():
    assert (Status().code, Status().reasons, Status().plugin) == (Code.Success, (), None)
    s = Status(code=Code.Unschedulable, reasons=("no room",), plugin="NodeResourcesFit")
    assert (s.code, s.reasons, s.plugin) == (Code.Unschedulable, ("no room",), "NodeResourcesFit")
    assert [f.name for f in dataclasses.fields(Status)] == ["code", "reasons", "plugin"]
    assert Status.__match_args__ == ("code", "reasons", "plugin")


@pytest.mark.parametrize(("given", "kept"), [(["a", "b"], ("a", "b")), ("one", ("one",)), (("t",), ("t",)),
                                             (iter(["x"]), ("x",))])
def test_reasons_are_kept_as_a_tuple(given, kept):
    assert Status(Code.Unschedulable, given).reasons == kept


def test_equality_hash_and_repr_are_the_dataclass_ones():
    a = Status(Code.Error, ["boom"], "P")
    b = Status(Code.Error, ("boom",), "P")
    assert a == b and hash(a) == hash(b) and a != Status(Code.Error, ("boom",))
    assert repr(a) == "Status(code=<Code.Error: 1>, reasons=('boom',), plugin='P')"
    assert Status() == SUCCESS and Status(Code.Skip) == SKIP


def test_copies_replace_and_pickle_give_equal_statuses():
    s = Status(Code.UnschedulableAndUnresolvable, ("node(s) had untolerated taint(s)",), "TaintToleration")
    assert copy.copy(s) == s and copy.deepcopy(s) == s and pickle.loads(pickle.dumps(s)) == s
    r = dataclasses.replace(s, plugin="Other")
    assert (r.code, r.reasons, r.plugin) == (s.code, s.reasons, "Other")


@pytest.mark.parametrize("field", ["code", "reasons", "plugin"])
def test_no_field_can_be_changed_or_added(field):
    s = Status()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(s, field, None)
    # (a name that is not a field: Python 3.11's frozen slots dataclass refuses it with a TypeError of
    # its own making, later versions with FrozenInstanceError or AttributeError; refused either way)
    with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
        s.extra = 1  # type: ignore[attr-defined]
    assert SUCCESS == Status()  # (the shared instance is untouched)


def test_a_plain_success_is_shared_and_copies_never_fill_it_in():
    """``Status()`` is the shared Success; copying or unpickling any Status goes through the
    constructor, so no copy can write another status's fields into the shared one."""
    assert Status() is SUCCESS and Status(Code.Success) is SUCCESS and Status.success() is SUCCESS
    assert Status(Code.Success, (), "P") is not SUCCESS and Status(Code.Success, ("x",)) is not SUCCESS
    failed = Status(Code.Unschedulable, ("no room",), "P")
    for copied in (copy.copy(failed), copy.deepcopy(failed), pickle.loads(pickle.dumps(failed))):
        assert copied == failed and copied is not SUCCESS
    assert pickle.loads(pickle.dumps(SUCCESS)) is SUCCESS and copy.deepcopy([SUCCESS])[0] is SUCCESS
    assert (SUCCESS.code, SUCCESS.reasons, SUCCESS.plugin) == (Code.Success, (), None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        SUCCESS.code = Code.Error  # type: ignore[misc]
    assert Status.unschedulable("a", "b", plugin="P") == Status(Code.Unschedulable, ("a", "b"), "P")
    assert Status.unresolvable("a").with_plugin("Q") == Status(Code.UnschedulableAndUnresolvable, ("a",), "Q")
