"""The server's JSON as the client reads it: checked field by field, unknown fields ignored; and the event
stream's messages, heartbeats and all."""

from __future__ import annotations

import json
import re

import pytest

from paperlab.errors import ServerError
from paperlab.events import CallEvent, CheckEvent, ReportEvent, StatusEvent, VerdictEvent, events, sse_messages
from paperlab.schemas import Report, ScratchResult, Submission, parse

CHECK = {"id": "f.a", "title": "A", "group": "f", "required": True, "status": "failed", "message": "expected 1, got 2",
         "duration_ms": 3, "output": "", "limit": None, "diagnosis": None}  # fmt: skip
REPORT = {"problem": "p", "solved": False, "status": "failed", "checks": [CHECK], "experiment": None, "limits": {},
          "sandbox": "bubblewrap", "duration_ms": 12.5, "error": None, "stopped": False}  # fmt: skip
SUBMISSION = {"id": "s1", "problem": "p", "status": "done", "created_at": "2026-12-01T10:00:00Z", "code": "x = 1",
              "report": REPORT,
              "summary": {"text": "Not solved yet: 1 of 1 checks failing.", "tone": "failed"}}  # fmt: skip


def test_a_submission_is_read_whole_and_unknown_fields_are_ignored() -> None:
    submission = parse(Submission, {**SUBMISSION, "from_a_newer_server": [1, 2]})
    assert submission.finished and submission.summary is not None and submission.summary.tone == "failed"
    assert submission.report is not None and submission.report.checks[0].message == "expected 1, got 2"
    assert submission.report.checks[0].duration_ms == 3.0 and isinstance(submission.report.checks[0].duration_ms, float)


def test_optional_parts_may_be_absent() -> None:
    older = {key: value for key, value in SUBMISSION.items() if key != "summary"}
    assert parse(Submission, older).summary is None
    assert parse(ScratchResult, {"stdout": "", "stderr": "", "error": {"kind": "limit", "message": "time"},
                                 "duration_ms": 5}).error.traceback == []  # type: ignore[union-attr]  # fmt: skip


@pytest.mark.parametrize(("data", "says"), [
    pytest.param({**REPORT, "solved": "no"}, "`solved` = 'no', not a bool", id="wrong-type"),
    pytest.param({key: value for key, value in REPORT.items() if key != "checks"}, "lacks `checks`", id="missing"),
    pytest.param({**REPORT, "checks": [{**CHECK, "required": 1}]}, "`checks[0].required` = 1", id="nested"),
    pytest.param({**REPORT, "checks": [{**CHECK, "duration_ms": True}]}, "duration_ms", id="a-bool-is-no-number"),
    pytest.param(["not", "an", "object"], "not an object", id="not-an-object"),
])  # fmt: skip
def test_an_answer_that_is_not_the_api_names_the_field(data: object, says: str) -> None:
    with pytest.raises(ServerError, match=re.escape(says)):
        parse(Report, data)


def test_sse_messages_skip_heartbeats_and_join_data_lines() -> None:
    lines = [": keep-alive", "", "retry: 1000", "", "event: check", "data: {\"a\":", "data: 1}", "",
             "data: no event name", ""]  # fmt: skip
    assert list(sse_messages(lines)) == [("check", '{"a":\n1}'), ("message", "no event name")]


def test_a_runs_events_in_order() -> None:
    stream = [
        "event: status", 'data: {"status":"running","total":1}', "",
        "event: call", 'data: {"function":"f","running_s":2.5}', "",
        "event: check", "data: " + json.dumps({"check": CHECK, "done": 1, "total": 1}), "",
        "event: call", 'data: {"function":null}', "",
        "event: verdict", 'data: {"solved":true}', "",
        "event: report", "data: " + json.dumps(SUBMISSION), "",
    ]  # fmt: skip
    kinds = list(events(stream))
    assert kinds[0] == StatusEvent(status="running", total=1)
    assert kinds[1] == CallEvent(function="f", running_s=2.5)
    assert isinstance(kinds[2], CheckEvent) and kinds[2].check.id == "f.a"
    assert kinds[3] == CallEvent(function=None)
    assert kinds[4] == VerdictEvent(solved=True)
    assert isinstance(kinds[5], ReportEvent) and kinds[5].submission.id == "s1"


@pytest.mark.parametrize(("data", "solved"), [('{"solved":true}', True), ('{"solved":false}', False),
                                              ('{"solved":"yes"}', False), ("[]", False)])
def test_only_a_verdict_that_says_solved_true_is_a_solve(data: str, solved: bool) -> None:
    assert list(events(["event: verdict", f"data: {data}", ""])) == [VerdictEvent(solved=solved)]


def test_an_event_that_is_not_json_is_a_server_error() -> None:
    with pytest.raises(ServerError, match="`check` event that is not JSON"):
        list(events(["event: check", "data: {", ""]))
