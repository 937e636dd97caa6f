"""FastAPI dependencies, as `Annotated` aliases: `def route(session: SessionDep, learner: LearnerDep)`."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.catalog import ProblemCatalog
from app.grading import EventBus, GradingBackend
from app.identity import STATE_KEY, LearnerCookie
from app.ratelimit import RateLimit
from app.settings import Settings
from app.state import AppState
from app.streams import OpenStreams

T = TypeVar("T")

# Dependencies that only read what is already in memory are `async def`: FastAPI runs a plain `def` in its
# thread pool, and every such hop waits for the GIL behind the grading threads while submissions are graded.


async def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.paperlab
    return state


StateDep = Annotated[AppState, Depends(app_state)]


async def settings(state: StateDep) -> Settings:
    return state.settings


async def catalog(state: StateDep) -> ProblemCatalog:
    return state.catalog


async def backend(state: StateDep) -> GradingBackend:
    return state.backend


async def event_bus(state: StateDep) -> EventBus:
    return state.bus


async def open_streams(state: StateDep) -> OpenStreams:
    return state.streams


async def address_rate(state: StateDep) -> RateLimit:
    return state.address_rate


def session(state: StateDep) -> Iterator[Session]:
    """A session for the whole request, closed only after the response is sent: never for a route whose
    response streams (app.routes.events) or waits on anything but the database."""
    with state.session_factory() as db_session:
        yield db_session


SettingsDep = Annotated[Settings, Depends(settings)]
CatalogDep = Annotated[ProblemCatalog, Depends(catalog)]
BackendDep = Annotated[GradingBackend, Depends(backend)]
EventBusDep = Annotated[EventBus, Depends(event_bus)]
OpenStreamsDep = Annotated[OpenStreams, Depends(open_streams)]
AddressRateDep = Annotated[RateLimit, Depends(address_rate)]
SessionDep = Annotated[Session, Depends(session)]


async def in_session(state: AppState, work: Callable[[Session], T]) -> T:
    """work(session) in one trip to the thread pool, the session closed (its connection back in the pool)
    before the response is sent, however slowly the client reads it."""

    def run() -> T:
        with state.session_factory() as db_session:
            return work(db_session)

    return await run_in_threadpool(run)


def known_learner(request: Request) -> str | None:
    """The learner id from a valid cookie, or None; mints nothing."""
    identity: LearnerCookie = getattr(request.state, STATE_KEY)
    return identity.learner_id


def learner_for(request: Request) -> str:
    """This request's learner id; a first-time visitor gets a new id (and the cookie, on the way out). No
    database work: the learner's row is written with their first submission (app.intake), so a page view
    holds no connection and a visitor who never submits costs no row."""
    identity: LearnerCookie = getattr(request.state, STATE_KEY)
    if identity.learner_id is None:
        identity.learner_id = str(uuid.uuid4())
        identity.minted = True
    return identity.learner_id


async def current_learner(request: Request) -> str:
    return learner_for(request)


LearnerDep = Annotated[str, Depends(current_learner)]
