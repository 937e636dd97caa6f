"""GET /api/submissions/{id}/events: the verdict as it happens, as Server-Sent Events.

`status` (while queued/running), one `check` per finished check (those already finished are replayed first,
so a reconnecting page misses nothing), then `report` (the submission as GET /api/submissions/{id} returns
it), and the stream ends. A finished submission gets its checks and report at once. Comments keep idle
streams open."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app import crud
from app.deps import CatalogDep, EventBusDep, LearnerDep, SettingsDep, StateDep
from app.grading.events import GradingEvent, Subscription
from app.models import FINISHED
from app.schemas import SubmissionOut, as_json, submission_out
from app.state import AppState

router = APIRouter(prefix="/api", tags=["api"])

HEARTBEAT = b": keep-alive\n\n"


@router.get(
    "/submissions/{submission_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, 404: {"description": "Unknown submission"}},
)
async def submission_events(
    submission_id: str,
    request: Request,
    state: StateDep,
    bus: EventBusDep,
    catalog: CatalogDep,
    settings: SettingsDep,
    learner: LearnerDep,
) -> StreamingResponse:
    # Subscribe before reading the database: a grading that finishes in between is then either in the
    # database (finished) or delivered to the subscription, never lost.
    subscription = bus.subscribe(submission_id)
    try:
        submission = await run_in_threadpool(_load, state, submission_id, learner)
    except BaseException:
        await subscription.aclose()
        raise
    total = catalog.entries[submission.problem].check_count if submission.problem in catalog.entries else 0
    stream = _stream(state, subscription, submission, learner, total=total, heartbeat_s=settings.sse_heartbeat_s)
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _load(state: AppState, submission_id: str, learner_id: str) -> SubmissionOut:
    with state.session_factory() as session:
        return submission_out(crud.get_submission(session=session, submission_id=submission_id, learner_id=learner_id))


async def _stream(
    state: AppState,
    subscription: Subscription,
    submission: SubmissionOut,
    learner_id: str,
    *,
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
        async for first in _with_heartbeats(subscription, heartbeat_s):
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
                elif event.kind == "finished":
                    finished = True
            if chunks:
                yield b"".join(chunks)
            if finished:
                break
        final = await run_in_threadpool(_load, state, submission.id, learner_id)
        yield sse("report", as_json(final))
    finally:
        await subscription.aclose()


def _finished(submission: SubmissionOut) -> list[bytes]:
    checks = submission.report.checks if submission.report else []
    chunks = [
        sse("check", {"check": check.model_dump(mode="json"), "done": number, "total": len(checks)})
        for number, check in enumerate(checks, start=1)
    ]
    chunks.append(sse("report", as_json(submission)))
    return chunks


async def _with_heartbeats(subscription: Subscription, interval_s: float) -> AsyncIterator[GradingEvent | None]:
    """The subscription's events, with None whenever `interval_s` passes without one. Waiting never cancels
    the pending read, so no event is dropped."""
    pending: asyncio.Task[GradingEvent] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(subscription.__anext__())
            done, _ = await asyncio.wait({pending}, timeout=interval_s)
            if not done:
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
        if pending is not None:
            pending.cancel()


def sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
