"""One wire schema: the worker (grader/sandboxed/, inside the sandbox) builds and reads its messages as plain dicts,
since grader.messages never loads there; this file proves, from the worker's source, that every dict it sends and
every field it reads is exactly what grader.messages says (`FIELDS`, derived from each message's dataclass).

Read with ast, so no sandbox is needed: a field added on one side only, or renamed, fails here."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from grader.limits import Limits
from grader.messages import (
    EXCEPTION_FIELDS,
    CallOutcome,
    CallsReply,
    CallsRequest,
    ChildExited,
    Forked,
    ForkRequest,
    Loaded,
    LoadRequest,
    RequestedCall,
    Tampered,
    TemplateReady,
    TimedOut,
    TooLarge,
)

# The worker's modules (the learner's side speaks no wire message), read as one tree.
SANDBOXED = Path(__file__).resolve().parents[2] / "grader" / "sandboxed"
WORKER_FILES = [path for path in sorted(SANDBOXED.glob("*.py")) if path.name != "learner_side.py"]
TREES = {path.name: ast.parse(path.read_text(), str(path)) for path in WORKER_FILES}
TREE = ast.Module(body=[statement for tree in TREES.values() for statement in tree.body], type_ignores=[])

# What the worker sends, by its `op`: the template's control messages and a child's replies.
SENT: dict[str, type[Any]] = {
    "ready": TemplateReady, "forked": Forked, "exited": ChildExited, "loaded": Loaded, "results": CallsReply,
    "too_large": TooLarge, "call_timed_out": TimedOut, "tampered": Tampered}
# What the worker reads, by (function, variable): the judge's requests as each function of the worker names them.
READ: dict[tuple[str, str], type[Any]] = {
    ("template", "request"): ForkRequest, ("serve", "header"): LoadRequest, ("serve", "request"): CallsRequest,
    ("calls", "request"): CallsRequest, ("call", "call"): RequestedCall, ("gradients", "call"): RequestedCall}
# The reply to one call, which the worker fills in field by field.
REPLY_VARIABLE = ("call", "gradients")


def functions() -> list[ast.FunctionDef]:
    return [node for node in ast.walk(TREE) if isinstance(node, ast.FunctionDef)]


def literal_keys(node: ast.Dict) -> set[str] | None:
    keys = {key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return keys if len(keys) == len(node.keys) else None


def sent_dicts() -> list[tuple[str, str, set[str]]]:
    """(file:line, op, keys) of every dict literal with an `op` in the worker."""
    sent = []
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and (keys := literal_keys(node)) is not None and "op" in keys:
                op = node.values[[key.value for key in node.keys if isinstance(key, ast.Constant)].index("op")]
                assert isinstance(op, ast.Constant), f"{name}:{node.lineno}: an op that is not a literal"
                sent.append((f"{name}:{node.lineno}", str(op.value), keys))
    return sent


def reads() -> dict[tuple[str, str], set[str]]:
    """(function, variable) -> the constant keys read from it: `variable["key"]` and `variable.get("key")`."""
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for function in functions():
        for node in ast.walk(function):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                found[(function.name, node.value.id)].add(node.slice.value)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                  and isinstance(node.func.value, ast.Name) and node.args and isinstance(node.args[0], ast.Constant)):
                found[(function.name, node.func.value.id)].add(str(node.args[0].value))
    return found


def test_every_message_the_worker_sends_carries_exactly_its_fields() -> None:
    sent = sent_dicts()
    assert {op for _, op, _ in sent} == set(SENT), "the worker sends an op this test does not know, or no longer one"
    wrong = [(line, op, sorted(keys ^ SENT[op].FIELDS)) for line, op, keys in sent if keys != SENT[op].FIELDS]
    assert wrong == []


def test_the_reply_to_a_call_starts_with_every_field_and_sets_only_those() -> None:
    replies = [keys for node in ast.walk(TREE) if isinstance(node, ast.Dict)
               and (keys := literal_keys(node)) is not None and "duration_ms" in keys]
    assert replies == [set(CallOutcome.FIELDS)]
    found = reads()
    written = set().union(*(found[(function, "reply")] for function in REPLY_VARIABLE))
    assert written and written <= CallOutcome.FIELDS


def test_an_exception_is_summarised_with_exactly_the_fields_the_judge_reads() -> None:
    summaries = [keys for node in ast.walk(TREE) if isinstance(node, ast.Dict)
                 and (keys := literal_keys(node)) is not None and "mro" in keys]
    assert summaries == [set(EXCEPTION_FIELDS)]


def type_name(kind: type[Any]) -> str:
    return kind.__name__


REQUESTS: list[type[Any]] = sorted(set(READ.values()), key=type_name)


@pytest.mark.parametrize("message", REQUESTS, ids=type_name)
def test_the_worker_reads_every_field_of_a_request_and_no_other(message: type[Any]) -> None:
    """Every field the judge sends is read (the `op` of a request the worker already knows by its channel may be
    left unread: the load request's), and nothing is read that the judge does not send."""
    found = reads()
    places = [place for place, kind in READ.items() if kind is message]
    assert all(found[place] for place in places), f"no reads left at {places}: the worker's names changed"
    read = set().union(*(found[place] for place in places))
    assert read <= message.FIELDS, f"read but never sent: {sorted(read - message.FIELDS)}"
    assert message.FIELDS - read <= {"op"}, f"sent but never read: {sorted(message.FIELDS - read)}"


def test_the_limits_and_the_arena_the_worker_reads_are_those_the_judge_sends() -> None:
    found = reads()
    assert found[("serve", "limits")] | found[("child_rlimits", "limits")] <= set(Limits.model_fields)
    assert found[("serve", "arena")] == set(CallsRequest(()).to_wire(None)["arena"])
