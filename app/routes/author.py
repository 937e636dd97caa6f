"""Author mode only (PAPERLAB_AUTHOR_MODE): the self-test status the author banner shows. Without author mode the
route does not exist for anyone (404): learners never see the battery's insides."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from app.addresses import client_address
from app.catalog import folder_signature
from app.deps import StateDep, learner_for
from app.errors import NotFound
from app.routes.events import EventStream
from app.streams import StreamSlot

# A save shows in the author's page within a second: the folder is looked at this often (one stat per file,
# about 2 ms for a problem's folder, ten times a second) while a page of it is open, on top of the catalog's own
# slower watch.
SAVE_POLL_S = 0.1
# A stream ends after this and the browser opens another (EventSource reconnects by itself after `retry`).
STREAM_LIFETIME_S = 30.0

router = APIRouter(prefix="/api/author", tags=["author"], include_in_schema=False)


@router.get("/selftest/{slug}")
async def selftest_status(slug: str, state: StateDep) -> dict[str, Any]:
    """The latest self-test of the problem folder `slug` (the first ask starts one; a change to its files starts
    another): `running`, `queued`, `finished_at`, `result` (`python -m grader selftest --json`'s verdict: sound,
    failures, the clause x check table, mutants caught or not) and `error` when the last run gave no verdict."""
    selftests = state.author_selftests
    catalog = state.catalog
    if selftests is None:
        raise NotFound("There is no such page.")
    if slug not in catalog.entries and slug not in catalog.invalid:
        raise NotFound(f"There is no problem folder '{slug}'.")
    return selftests.status(slug)


@router.get("/events/{slug}")
async def folder_events(slug: str, request: Request, state: StateDep) -> EventStream:
    """Server-Sent Events for an author's open page of `slug`: `event: changed` once a file in its folder was
    saved and the problem reloaded (app.catalog), so that author.js reloads the page. Author mode only."""
    catalog = state.catalog
    if state.author_selftests is None or catalog.problems_dir is None:
        raise NotFound("There is no such page.")
    if slug not in catalog.entries and slug not in catalog.invalid:
        raise NotFound(f"There is no problem folder '{slug}'.")
    folder = catalog.problems_dir / slug
    slot = state.streams.open(learner_id=learner_for(request), address=client_address(request))
    return EventStream(_folder_changes(state, slug, folder, slot), slot=slot)


async def _folder_changes(state: Any, slug: str, folder: Any, slot: StreamSlot) -> AsyncIterator[bytes]:
    yield b"retry: 500\n\n"
    before = await run_in_threadpool(folder_signature, folder)
    deadline = asyncio.get_running_loop().time() + STREAM_LIFETIME_S
    while asyncio.get_running_loop().time() < deadline:
        try:
            await asyncio.wait_for(slot.ended.wait(), timeout=SAVE_POLL_S)
            return  # the server is shutting down
        except TimeoutError:
            pass
        now = await run_in_threadpool(folder_signature, folder)
        if now == before:
            continue
        before = now
        await run_in_threadpool(state.catalog.refresh, slug)  # serve the saved version to the reloaded page
        yield f"event: changed\ndata: {json.dumps({'slug': slug})}\n\n".encode()
