"""The contract kinds for plain Python values, specified: `str` and `list` arguments, `str` and `list` results.
What a declaration may say, which rules a call breaks, what the battery draws and refuses, and, on the bpe
problem graded in this process (bench.inprocess), that a solution returning the wrong kind or changing a list
argument in place fails the generic check that owns it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from pydantic import ValidationError

from bench.inprocess import InProcessPool
from grader.contract.battery import FunctionBattery
from grader.contract.draw import edge_scalars
from grader.contract.legality import violations
from grader.contract.schema import FunctionContract, StrArg
from grader.judge import grade
from grader.problems import Problem, load_problem
from grader.report import Report

BPE = Path(__file__).resolve().parents[2] / "problems" / "bpe"

PAIR = {"kind": "tuple", "lists": True, "items": [{"kind": "int", "range": "[0, 256+M)"},
                                                  {"kind": "int", "range": "[0, 256+M)"}]}
DECODE = {
    "dims": {"N": {"min": 0}, "M": {"min": 0}},
    "args": {"ids": {"kind": "list", "length": "N", "tuples": True, "item": {"kind": "int", "range": "[0, 256+M)"}},
             "merges": {"kind": "list", "length": "M", "tuples": True, "item": PAIR}},
    "result": {"kind": "str"},
}
LEARN = {
    "args": {"text": {"kind": "str"}, "num_merges": {"kind": "int", "range": "[0, inf)"}},
    "result": {"kind": "list", "item": {"kind": "tuple", "items": [{"kind": "int"}, {"kind": "int"}]}},
}


def contract(fields: dict[str, Any]) -> FunctionContract:
    return FunctionContract.model_validate(fields)


# ---------------------------------------------------------------------------------------------- declarations


@pytest.mark.parametrize(
    "declared, words",
    [
        pytest.param({"args": {"s": {"kind": "str", "min_length": 3, "max_length": 2}}, "result": {"kind": "str"}},
                     "max_length 2 is below min_length 3", id="str-lengths-reversed"),
        pytest.param({"args": {"v": {"kind": "list", "length": "N", "item": {"kind": "int", "range": "[0, 9]"}}},
                      "result": {"kind": "str"}}, "uses N, which [functions.dims] does not declare",
                     id="list-length-undeclared"),
        pytest.param({"dims": {"N": {}}, "args": {"v": {"kind": "list", "length": "N",
                                                          "item": {"kind": "int", "range": "[0, K)"}}},
                      "result": {"kind": "str"}}, "uses K", id="list-item-range-undeclared"),
        pytest.param({"dims": {"N": {}}, "args": {"v": {"kind": "list", "length": "N",
                                                          "item": {"kind": "int", "size": "N"}}},
                      "result": {"kind": "str"}}, "need a range, not a size", id="list-item-size"),
        pytest.param({"dims": {"N": {}}, "args": {"v": {"kind": "list", "length": "N",
                                                          "item": {"kind": "tensor", "shape": ["N"]}}},
                      "result": {"kind": "str"}}, "item", id="list-of-tensors"),
        pytest.param({"args": {"s": {"kind": "str"}},
                      "result": {"kind": "list", "item": {"kind": "tensor", "shape": []}}},
                     "use kind = 'tensor_list'", id="list-result-of-tensors"),
    ],
)
def test_an_impossible_plain_declaration_is_refused_with_its_reason(declared: dict[str, Any], words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        contract(declared)
    assert words in str(caught.value), str(caught.value)


def test_the_bpe_declarations_load() -> None:
    assert contract(DECODE).result.kind == "str"
    assert contract(LEARN).result.kind == "list"


# ------------------------------------------------------------------------------------------------- legality


@pytest.mark.parametrize(
    "changes, rules",
    [
        pytest.param({}, set(), id="legal"),
        pytest.param({"ids": (104, 105)}, set(), id="ids-as-a-tuple-declared-legal"),
        pytest.param({"merges": [[104, 105]]}, set(), id="a-pair-as-a-list-declared-legal"),
        pytest.param({"ids": [], "merges": []}, set(), id="empty-lists"),
        pytest.param({"ids": "hi"}, {"kind"}, id="ids-a-str"),
        pytest.param({"ids": None}, {"kind"}, id="ids-none"),
        pytest.param({"ids": [104, True]}, {"kind"}, id="a-bool-id"),
        pytest.param({"ids": [104, 1.0]}, {"kind"}, id="a-float-id"),
        pytest.param({"ids": [104, torch.tensor(1)]}, {"kind"}, id="a-tensor-id"),
        pytest.param({"ids": [257]}, {"range"}, id="an-id-past-the-vocabulary"),
        pytest.param({"ids": [-1]}, {"range"}, id="a-negative-id"),
        pytest.param({"merges": [(104, 105, 106)]}, {"shape"}, id="a-merge-of-three"),
        pytest.param({"merges": [104]}, {"kind"}, id="a-merge-a-bare-int"),
        pytest.param({"merges": [(104, 300)]}, {"range"}, id="a-merge-id-out-of-range"),
        pytest.param({"merges": {0: (104, 105)}}, {"kind"}, id="merges-a-dict"),
    ],
)
def test_a_list_call_breaks_exactly_the_rules_it_breaks(changes: dict[str, Any], rules: set[str]) -> None:
    args = {"ids": [104, 256], "merges": [(104, 105)], **changes}
    assert set(violations(contract(DECODE), args)) == rules


@pytest.mark.parametrize(
    "text, declared, rules",
    [
        pytest.param("", {}, set(), id="empty"),
        pytest.param("naïve 日本 😀\n", {}, set(), id="any-unicode"),
        pytest.param(b"hug", {}, {"kind"}, id="bytes"),
        pytest.param(["h", "u"], {}, {"kind"}, id="a-list-of-characters"),
        pytest.param(None, {}, {"kind"}, id="none"),
        pytest.param("a\ud800", {}, {"range"}, id="a-lone-surrogate"),
        pytest.param("a\ud800", {"utf8": False}, set(), id="a-lone-surrogate-where-declared-legal"),
        pytest.param("ab", {"min_length": 3}, {"shape"}, id="too-short"),
        pytest.param("abcd", {"max_length": 3}, {"shape"}, id="too-long"),
    ],
)
def test_a_str_is_exactly_a_str_in_its_lengths(text: Any, declared: dict[str, Any], rules: set[str]) -> None:
    declaration = contract({"args": {"text": {"kind": "str", **declared}}, "result": {"kind": "str"}})
    assert set(violations(declaration, {"text": text})) == rules


# -------------------------------------------------------------------------------------------------- drawing


def battery(fields: dict[str, Any], name: str = "decode") -> FunctionBattery:
    return FunctionBattery("plain", name, contract(fields), None, {})


def test_drawn_lists_are_legal_lists_of_their_length() -> None:
    drawn = battery(DECODE)
    for case in drawn.values_cases + drawn.edge_cases:
        assert violations(drawn.contract, case.args) == {}, case.label
    base = drawn.values_cases[0]
    assert type(base.args["ids"]) is list and len(base.args["ids"]) == base.sizes.dims["N"]
    assert all(type(pair) is tuple and len(pair) == 2 for pair in base.args["merges"])


@pytest.mark.parametrize(
    "label, check",
    [
        pytest.param("N = 0", lambda args: args["ids"] == [], id="empty-ids"),
        pytest.param("M = 0", lambda args: args["merges"] == [], id="empty-merges"),
        pytest.param("ids as a tuple", lambda args: type(args["ids"]) is tuple, id="ids-as-a-tuple"),
        pytest.param("merges as a tuple", lambda args: type(args["merges"]) is tuple, id="merges-as-a-tuple"),
        pytest.param("the items of merges as lists", lambda args: all(type(p) is list for p in args["merges"]),
                     id="pairs-as-lists"),
    ],
)
def test_the_edges_of_a_list_include_empty_tuples_and_list_items(label: str, check: Any) -> None:
    cases = {case.label: case.args for case in battery(DECODE).edge_cases}
    assert label in cases, sorted(cases)
    assert check(cases[label])


@pytest.mark.parametrize(
    "declared, edges",
    [
        pytest.param({}, [""], id="the-empty-string"),
        pytest.param({"alphabet": "ab", "min_length": 1, "max_length": 3}, ["a", "aba"], id="shortest-and-longest"),
    ],
)
def test_the_edges_of_a_str_are_its_shortest_and_longest(declared: dict[str, Any], edges: list[str]) -> None:
    assert edge_scalars(StrArg(kind="str", **declared), {}) == edges


def test_refusals_break_each_rule_of_a_plain_argument_alone() -> None:
    refused = battery(DECODE).refusal_cases
    reasons = {case.reason: case.exception for case in refused}
    for words, exception in [("ids is a str", "TypeError"), ("ids is a dict", "TypeError"),
                             ("ids[0] is a bool", "TypeError"), ("ids[0] is a float", "TypeError"),
                             ("ids[0] = -1 is outside", "ValueError"), ("ids[0] = 258 is outside", "ValueError"),
                             ("merges[0] has 3 items", "ValueError"), ("merges[0] is a int", "TypeError"),
                             ("merges[0][0] is a bool", "TypeError"), ("merges[0][0] = -1 is outside", "ValueError")]:
        assert any(reason.startswith(words) and found == exception for reason, found in reasons.items()), \
            (words, sorted(reasons))
    assert all(len(violations(battery(DECODE).contract, case.args)) == 1 for case in refused)


def test_a_str_argument_is_refused_as_bytes_a_list_and_with_a_lone_surrogate() -> None:
    reasons = {case.reason: case.exception for case in battery(LEARN, "learn_bpe").refusal_cases}
    for words, exception in [("text is a bytes", "TypeError"), ("text is a list", "TypeError"),
                             ("text holds '\\ud800'", "ValueError"), ("num_merges = -1", "ValueError")]:
        assert any(reason.startswith(words) and found == exception for reason, found in reasons.items()), \
            (words, sorted(reasons))


@pytest.mark.parametrize("fields", [pytest.param(DECODE, id="lists"), pytest.param(LEARN, id="str")])
def test_plain_arguments_get_no_dtype_layout_autograd_or_same_tensor_checks(fields: dict[str, Any]) -> None:
    ids = {check.id.rsplit(".", 1)[1] for check in battery(fields).checks()}
    assert ids == {"values", "edges", "refusals"}


# ---------------------------------------------------------------------------------------- the bpe problem


@pytest.fixture(scope="module")
def bpe() -> Problem:
    return load_problem(BPE)


def graded(problem: Problem, patch: str = "") -> Report:
    code = problem.reference_source() + "\n\n" + patch
    return grade(problem, code, pool=InProcessPool())  # type: ignore[arg-type]


def failed(report: Report) -> dict[str, str]:
    return {c.id: c.message for c in report.checks if c.status != "passed"}


def test_bpe_declares_every_function_and_the_reference_passes_the_generic_checks(bpe: Problem) -> None:
    generic = sorted(c.id for c in bpe.checks if c.id.startswith("contract.") and c.id.count(".") == 2)
    assert generic == [f"contract.{f}.{kind}" for f in ("decode", "encode", "learn_bpe")
                       for kind in ("edges", "refusals", "values")]
    assert "contract.search" in {c.id for c in bpe.checks}
    assert failed(graded(bpe)) == {}


LEARN_PATCH = "_reference_learn = learn_bpe\n\n\ndef learn_bpe(text, num_merges):\n"
ENCODE_PATCH = "_reference_encode = encode\n\n\ndef encode(text, merges):\n"
DECODE_PATCH = "_reference_decode = decode\n\n\ndef decode(ids, merges):\n"


@pytest.mark.parametrize(
    "patch, check_id, words",
    [
        pytest.param(LEARN_PATCH + "    return tuple(_reference_learn(text, num_merges))\n",
                     "contract.learn_bpe.values", ["learn_bpe(text=", "[generic input: ", "is a tuple",
                                                   "the contract says a list"],
                     id="a tuple instead of a list"),
        pytest.param(LEARN_PATCH + "    return [list(p) for p in _reference_learn(text, num_merges)]\n",
                     "contract.learn_bpe.values", ["learn_bpe(text=", "[generic input: ", "the result[0] is a list",
                                                   "the contract says a tuple of 2"],
                     id="pairs as lists"),
        pytest.param(ENCODE_PATCH + "    return [bool(t) if t < 2 else t for t in _reference_encode(text, merges)] "
                                    "+ [True]\n",
                     "contract.encode.values", ["is bool True", "the contract says a Python int"],
                     id="a bool among the ids"),
        pytest.param(ENCODE_PATCH + "    return [t + 1 for t in _reference_encode(text, merges)]\n",
                     "contract.encode.values", ["of encode(text=", "[generic input: ", "expected"],
                     id="every id off by one"),
        pytest.param(ENCODE_PATCH + "    ids = _reference_encode(text, merges)\n"
                                    "    if isinstance(merges, list):\n        merges.clear()\n    return ids\n",
                     "contract.encode.values", ["changed merges (its items", "every argument must be left as it was"],
                     id="merges cleared in place"),
        pytest.param(DECODE_PATCH + "    if isinstance(merges, list):\n        merges.sort()\n"
                                    "    return _reference_decode(ids, merges)\n",
                     "contract.decode.values", ["changed merges"], id="merges sorted in place"),
        pytest.param(DECODE_PATCH + "    if isinstance(ids, list):\n        ids.append(0)\n        ids.pop()\n"
                                    "        ids.reverse()\n    return _reference_decode(ids, merges)\n",
                     "contract.decode.values", ["changed ids"], id="ids reversed in place"),
        pytest.param(DECODE_PATCH + "    return _reference_decode(list(ids), merges).encode()\n",
                     "contract.decode.values", ["bytes", "the contract says a Python str"],
                     id="bytes instead of a str"),
        pytest.param(LEARN_PATCH + "    return _reference_learn(text, max(num_merges, 0))\n",
                     "contract.learn_bpe.refusals", ["expected ValueError", "num_merges = -1"],
                     id="a negative count accepted"),
    ],
)
def test_a_plain_kind_bug_fails_the_generic_check_that_owns_it(bpe: Problem, patch: str, check_id: str,
                                                               words: list[str]) -> None:
    failures = failed(graded(bpe, patch))
    assert check_id in failures, failures
    assert all(word in failures[check_id] for word in words), failures[check_id]
