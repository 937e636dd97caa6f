"""A header's JSON (grader.protocol.framing.dumps): written by orjson where it can, by the standard library's
encoder where it cannot, and read back by the standard library to exactly the values the standard library's own
writing gives."""

from __future__ import annotations

import dataclasses
import datetime
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.protocol import framing


def standard(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), allow_nan=True).encode()


headers = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(headers)
def test_a_header_reads_back_as_the_standard_librarys_writing_does(value: Any) -> None:
    assert repr(framing.loads(framing.dumps(value))) == repr(framing.loads(standard(value)))


@pytest.mark.parametrize("value", [
    2 ** 64, -(2 ** 63) - 1, 10 ** 40,  # past what orjson writes
    "\ud800", {"key": ["\udfff"]},  # lone surrogates
    1e16, -0.0, 5e-324, 1.7976931348623157e308, "é\u2028\x00",
])
def test_what_orjson_refuses_or_writes_otherwise_reads_back_the_same(value: Any) -> None:
    assert repr(framing.loads(framing.dumps(value))) == repr(json.loads(standard(value)))


class Renamed(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        return [("renamed", 1)]


class Shouting(str):
    pass


@dataclasses.dataclass
class Point:
    x: int


@pytest.mark.parametrize("value", [Renamed(a=2), Shouting("quiet"), [Shouting("x")], {"n": True},
                                   {1.5: "a key that is not a string"}, {None: 1}])
def test_a_subclass_or_a_key_that_is_not_a_string_is_written_as_the_standard_library_writes_it(value: Any) -> None:
    assert framing.dumps(value) == standard(value)


@pytest.mark.parametrize("value", [Point(1), datetime.date(2026, 1, 1), {"when": datetime.datetime(2026, 1, 1)},
                                   object()])
def test_what_the_standard_library_refuses_is_still_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        standard(value)
    with pytest.raises(TypeError):
        framing.dumps(value)


@pytest.mark.parametrize("value", [{"op": "results", "results": [{"value": 1.5, "output": "é"}]}, 2 ** 70, "\ud800"])
def test_without_orjson_as_in_the_sandbox_the_standard_library_writes(value: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "_orjson_dumps", None)
    assert framing.dumps(value) == standard(value)
