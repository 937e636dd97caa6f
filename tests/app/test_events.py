"""GET /api/submissions/{id}/events: every check, then the report, then the end of the stream."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from app.grading.event_bus import EventKind, GradingEvent, InMemoryEventBus
from tests.app.app_support import (
    CHECK_IDS,
    CORRECT,
    WRONG,
    HeldGrader,
    TestClient,
    held_backend,
    parse_sse,
    read_events,
    submit,
    wait_for_verdict,
)
from tests.app.conftest import Server


def _assert_checks_then_report(events: list[tuple[str, dict[str, Any]]], submission_id: str) -> None:
    kinds = [kind for kind, _ in events]
    assert set(kinds) <= {"status", "check", "verdict", "report"}
    assert kinds[-1] == "report" and kinds.count("report") == 1
    if "verdict" in kinds:  # a live stream: the verdict comes once every required check is in (all three are)
        assert kinds.count("verdict") == 1 and [i for i, kind in enumerate(kinds) if kind == "check"][-1] \
            < kinds.index("verdict") < kinds.index("report")
        assert events[kinds.index("verdict")][1] == {"solved": events[-1][1]["report"]["solved"]}
    checks = [data for kind, data in events if kind == "check"]
    assert [c["check"]["id"] for c in checks] == CHECK_IDS
    assert [(c["done"], c["total"]) for c in checks] == [(1, 3), (2, 3), (3, 3)]
    assert kinds.index("report") > max(i for i, kind in enumerate(kinds) if kind == "check")
    report = events[-1][1]
    assert report["id"] == submission_id and report["status"] == "done"
    assert [c["id"] for c in report["report"]["checks"]] == CHECK_IDS


def test_sse_delivers_every_check_then_the_report(client: TestClient) -> None:
    submission_id = submit(client, CORRECT).json()["id"]
    events = read_events(client, submission_id)
    _assert_checks_then_report(events, submission_id)
    assert events[-1][1]["report"]["solved"] is True
    statuses = [data["status"] for kind, data in events if kind == "status"]
    assert statuses in ([], ["queued"], ["running"], ["queued", "running"])  # each state once, in order


def test_sse_of_a_finished_submission_replays_checks_and_report_at_once(client: TestClient) -> None:
    submission_id = submit(client, WRONG).json()["id"]
    verdict = wait_for_verdict(client, submission_id)
    events = read_events(client, submission_id)
    assert [kind for kind, _ in events] == ["check", "check", "check", "report"]
    _assert_checks_then_report(events, submission_id)
    assert events[-1][1] == verdict
    assert [data["check"]["status"] for _, data in events[:3]] == ["failed", "passed", "failed"]


def test_sse_sends_status_and_heartbeats_while_waiting(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader), sse_heartbeat_s=0.05)
    submission_id = submit(server.client, CORRECT).json()["id"]
    assert grader.started.wait(10)
    seen: list[tuple[str, object]] = []
    with server.client.stream("GET", f"/api/submissions/{submission_id}/events") as response:
        assert response.headers["cache-control"] == "no-cache"
        for kind, data in parse_sse(response.iter_lines()):
            seen.append((kind, data))
            if kind == "comment":
                grader.release.set()  # let the grading finish once a heartbeat has come through
    kinds = [kind for kind, _ in seen]
    assert kinds[0] == "status" and seen[0][1] == {"status": "running", "total": 3}
    assert "comment" in kinds and kinds[-1] == "report"
    assert seen[-1][1]["status"] == "done"  # type: ignore[index]


def test_in_memory_bus_replays_a_grading_in_progress_to_late_subscribers() -> None:
    async def scenario() -> list[GradingEvent]:
        bus = InMemoryEventBus()
        bus.publish("s1", GradingEvent("status", {"status": "running", "total": 2}))
        bus.publish("s1", GradingEvent("check", {"done": 1}))
        subscription = bus.subscribe("s1")  # late: one check already finished
        bus.publish("s1", GradingEvent("check", {"done": 2}))
        bus.publish("s1", GradingEvent("finished", {"status": "done"}))
        bus.publish("s1", GradingEvent("check", {"done": 99}))  # after the end: not delivered
        received = [event async for event in subscription]
        assert bus.log_size() == 1  # only the stray event after the end remains logged
        return received

    events = asyncio.run(scenario())
    assert [(e.kind, e.data.get("done")) for e in events] == [
        ("status", None), ("check", 1), ("check", 2), ("finished", None),
    ]


def test_in_memory_bus_delivers_from_other_threads_and_forgets_finished_gradings() -> None:
    async def scenario() -> tuple[list[EventKind], int]:
        bus = InMemoryEventBus()
        subscription = bus.subscribe("s2")
        loop = asyncio.get_running_loop()

        def grade() -> None:
            bus.publish("s2", GradingEvent("status", {"status": "running"}))
            for done in range(1, 4):
                bus.publish("s2", GradingEvent("check", {"done": done}))
            bus.publish("s2", GradingEvent("finished", {"status": "done"}))

        await loop.run_in_executor(None, grade)
        kinds = [event.kind async for event in subscription]
        return kinds, bus.log_size()

    kinds, logs = asyncio.run(scenario())
    assert kinds == ["status", "check", "check", "check", "finished"]
    assert logs == 0


def test_event_json_round_trip() -> None:
    event = GradingEvent("check", {"check": {"id": "a.b"}, "done": 1, "total": 2})
    assert GradingEvent.from_json(event.to_json()) == event


def test_in_memory_subscription_hands_over_a_burst_at_once_and_stops_at_finished() -> None:
    async def scenario() -> tuple[GradingEvent, list[GradingEvent], list[GradingEvent]]:
        bus = InMemoryEventBus()
        subscription = bus.subscribe("s3")
        loop = asyncio.get_running_loop()

        def grade() -> None:  # a grading thread finishing three checks in a row, then the grading
            for done in (1, 2, 3):
                bus.publish("s3", GradingEvent("check", {"done": done}))
            bus.publish("s3", GradingEvent("finished", {"status": "done"}))
            bus.publish("s3", GradingEvent("check", {"done": 99}))

        await loop.run_in_executor(None, grade)
        first = await subscription.__anext__()
        ready = subscription.take_ready()
        return first, ready, subscription.take_ready()

    first, ready, after = asyncio.run(scenario())
    assert (first.kind, first.data) == ("check", {"done": 1})
    assert [(e.kind, e.data.get("done")) for e in ready] == [("check", 2), ("check", 3), ("finished", None)]
    assert after == []
