"""GET /api/submissions/{id}/events: the verdict as it happens, as Server-Sent Events.

`status` (while queued/running), one `check` per finished check (those already finished are replayed first,
so a reconnecting page misses nothing), `call` while a learner call has been running long (which function,
for how long) and once it is over, `verdict` (`{"solved": bool}`) as soon as the required checks are done,
before the advisory ones run (a solved one has unlocked the notes by then), then `report` (the submission as
GET /api/submissions/{id} returns it), and the stream ends. A finished submission gets its checks and report
at once. Comments keep idle streams open.

A stream holds no database connection while it is open (it reads the submission before it starts and the
report after `finished`), takes one of its learner's and, unless the learner is established (app.trust), its
network address's few places (app.streams; 429 beyond), and ends when the server shuts down. The places are
taken after the read, which a refused stream therefore costs, as any read of a submission does."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send

from app import crud
from app.addresses import client_address
from app.deps import EventBusDep, OpenStreamsDep, StateDep, known_learner
from app.errors import NotFound
from app.grading.event_bus import EventBus, GradingEvent, Subscription
from app.models import FINISHED
from app.schemas import SubmissionOut, as_json, submission_out
from app.state import AppState
from app.streams import StreamSlot
from app.trust import is_established

router = APIRouter(prefix="/api", tags=["api"])

HEARTBEAT = b": keep-alive\n\n"
# Sent when the server ends a stream early (shutdown): EventSource reconnects after this many milliseconds.
RECONNECT = b"retry: 1000\n\n"


@router.get(
    "/submissions/{submission_id}/events",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}},
        404: {"description": "Unknown submission"},
        429: {"description": "Too many streams open for this learner or network address (see Retry-After)"},
    },
)
async def submission_events(
    submission_id: str, request: Request, state: StateDep, bus: EventBusDep, streams: OpenStreamsDep
) -> StreamingResponse:
    learner = known_learner(request)
    if learner is None:  # no cookie, no submissions: nothing to mint, look up or hold a place for
        raise NotFound(f"There is no submission '{submission_id}' of yours.")
    subscription, submission, established = await _subscribe_and_load(state, bus, submission_id, learner)
    try:
        slot = streams.open(learner_id=learner, address=client_address(request), established=established)
    except BaseException:
        await subscription.aclose()
        raise
    catalog = state.catalog
    total = catalog.entries[submission.problem].check_count if submission.problem in catalog.entries else 0
    stream = _stream(
        state, subscription, submission, learner, slot=slot, total=total, heartbeat_s=state.settings.sse_heartbeat_s
    )
    return EventStream(stream, slot=slot)


class EventStream(StreamingResponse):
    """Gives its stream's place back however the response ends, even if its body never started."""

    def __init__(self, content: AsyncIterator[bytes], *, slot: StreamSlot) -> None:
        super().__init__(
            content,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self.slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slot.release()


async def _subscribe_and_load(
    state: AppState, bus: EventBus, submission_id: str, learner_id: str
) -> tuple[Subscription, SubmissionOut, bool]:
    # Subscribe before reading the database: a grading that finishes in between is then either in the
    # database (finished) or delivered to the subscription, never lost. The session is closed before the
    # stream starts: an open stream holds no database connection.
    subscription = bus.subscribe(submission_id)
    try:
        submission, established = await run_in_threadpool(_load_opening, state, submission_id, learner_id)
    except BaseException:
        await subscription.aclose()
        raise
    return subscription, submission, established


def _load_opening(state: AppState, submission_id: str, learner_id: str) -> tuple[SubmissionOut, bool]:
    """The submission (NotFound unless it is this learner's), and whether the learner is established (their
    streams then do not count against their address: a class behind one NAT follows its runs)."""
    with state.session_factory() as session:
        submission = submission_out(
            crud.get_submission(session=session, submission_id=submission_id, learner_id=learner_id)
        )
        return submission, is_established(session=session, learner_id=learner_id,
                                          rule=state.settings.established_after)


def _load(state: AppState, submission_id: str, learner_id: str) -> SubmissionOut:
    with state.session_factory() as session:
        return submission_out(crud.get_submission(session=session, submission_id=submission_id, learner_id=learner_id))


async def _stream(
    state: AppState,
    subscription: Subscription,
    submission: SubmissionOut,
    learner_id: str,
    *,
    slot: StreamSlot,
    total: int,
    heartbeat_s: float,
) -> AsyncIterator[bytes]:
    try:
        if submission.status in FINISHED:
            await subscription.aclose()
            yield b"".join(_finished(submission))
            return
        status = submission.status
        yield sse("status", {"status": status, "total": total})
        finished = False
        async for first in _with_heartbeats(subscription, heartbeat_s, ended=slot.ended):
            if first is None:
                yield HEARTBEAT
                continue
            # Checks finish faster than a stream wakes up under load: whatever has arrived goes out in one write.
            chunks: list[bytes] = []
            for event in [first, *subscription.take_ready()]:
                if event.kind == "status" and event.data.get("status") != status:
                    status = event.data.get("status", status)
                    chunks.append(sse("status", {"status": status, "total": event.data.get("total", total)}))
                elif event.kind == "check":
                    chunks.append(sse("check", event.data))
                elif event.kind == "call":
                    chunks.append(sse("call", running_call(event.data)))
                elif event.kind == "verdict":
                    chunks.append(sse("verdict", {"solved": event.data.get("solved") is True}))
                elif event.kind == "finished":
                    finished = True
            if chunks:
                yield b"".join(chunks)
            if finished:
                break
        if not finished and slot.ended.is_set():  # shutting down: the browser reconnects (to the next server)
            yield RECONNECT
            return
        final = await run_in_threadpool(_load, state, submission.id, learner_id)
        yield sse("report", as_json(final))
    finally:
        await subscription.aclose()
        slot.release()


def running_call(data: dict[str, Any], *, now: float | None = None) -> dict[str, Any]:
    """A `call` event as the page gets it: the learner function the judge has been waiting on and for how long
    at the moment it is sent (so a replayed one is as current as a live one), or `{"function": null}` when that
    call is over. `function` is "" while the code itself loads."""
    function = data.get("function")
    if not isinstance(function, str):
        return {"function": None}
    started_at = data.get("started_at")
    now = time.time() if now is None else now
    running_s = max(0.0, now - started_at) if isinstance(started_at, int | float) else 0.0
    return {"function": function, "running_s": round(running_s, 1)}


def _finished(submission: SubmissionOut) -> list[bytes]:
    checks = submission.report.checks if submission.report else []
    chunks = [
        sse("check", {"check": check.model_dump(mode="json"), "done": number, "total": len(checks)})
        for number, check in enumerate(checks, start=1)
    ]
    chunks.append(sse("report", as_json(submission)))
    return chunks


async def _with_heartbeats(
    subscription: Subscription, interval_s: float, *, ended: asyncio.Event
) -> AsyncIterator[GradingEvent | None]:
    """The subscription's events, with None whenever `interval_s` passes without one, until the subscription
    ends or `ended` is set. Waiting never cancels the pending read, so no event is dropped."""
    pending: asyncio.Task[GradingEvent] | None = None
    stop = asyncio.ensure_future(ended.wait())
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(subscription.__anext__())
            done, _ = await asyncio.wait({pending, stop}, timeout=interval_s, return_when=asyncio.FIRST_COMPLETED)
            if pending not in done:
                if stop in done:
                    return
                yield None
                continue
            try:
                event = pending.result()
            except StopAsyncIteration:
                return
            finally:
                pending = None
            yield event
    finally:
        stop.cancel()
        if pending is not None:
            pending.cancel()


def sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
