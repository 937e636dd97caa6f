"""FastAPI dependencies, as `Annotated` aliases: `def route(session: SessionDep, learner: LearnerDep)`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app import crud
from app.catalog import ProblemCatalog
from app.grading import EventBus, GradingBackend
from app.identity import STATE_KEY, LearnerCookie
from app.settings import Settings
from app.state import AppState

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


def session(state: StateDep) -> Iterator[Session]:
    with state.session_factory() as db_session:
        yield db_session


SettingsDep = Annotated[Settings, Depends(settings)]
CatalogDep = Annotated[ProblemCatalog, Depends(catalog)]
BackendDep = Annotated[GradingBackend, Depends(backend)]
EventBusDep = Annotated[EventBus, Depends(event_bus)]
SessionDep = Annotated[Session, Depends(session)]


def current_learner(request: Request, session: SessionDep) -> str:
    """This request's learner id; a first-time visitor gets a new learner (and the cookie, on the way out)."""
    identity: LearnerCookie = getattr(request.state, STATE_KEY)
    if identity.learner_id is None:
        identity.learner_id = str(uuid.uuid4())
        identity.minted = True
    crud.ensure_learner(session=session, learner_id=identity.learner_id)
    return identity.learner_id


LearnerDep = Annotated[str, Depends(current_learner)]
