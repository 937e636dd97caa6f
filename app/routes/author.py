"""Author mode only (PAPERLAB_AUTHOR_MODE): the self-test status the author banner shows. Without author mode the
route does not exist for anyone (404): learners never see the battery's insides."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.deps import StateDep
from app.errors import NotFound

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
