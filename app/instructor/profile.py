"""A learner's display name and optional student id, set from their attempts page and shown to instructors.
Learners stay anonymous otherwise: nothing asks for either, and an empty name removes the profile."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy.orm import Session
from starlette.responses import Response

from app import crud
from app.deps import StateDep, in_session, learner_for
from app.errors import UnprocessableContent
from app.instructor.auth import read_form
from app.instructor.models import LearnerProfile
from app.models import utcnow
from app.redirects import local_path

router = APIRouter(include_in_schema=False)


class ProfileIn(BaseModel):
    display_name: str = Field(default="", max_length=80)
    student_id: str = Field(default="", max_length=64)


def profile_of(*, session: Session, learner_id: str) -> dict[str, str]:
    profile = session.get(LearnerProfile, learner_id)
    if profile is None:
        return {"display_name": "", "student_id": ""}
    return {"display_name": profile.display_name, "student_id": profile.student_id or ""}


def save_profile(*, session: Session, learner_id: str, values: ProfileIn) -> None:
    crud.ensure_learner(session=session, learner_id=learner_id)
    profile = session.get(LearnerProfile, learner_id)
    name, student = values.display_name.strip(), values.student_id.strip() or None
    if not name:
        if profile is not None:
            session.delete(profile)
    elif profile is None:
        session.add(LearnerProfile(learner_id=learner_id, display_name=name, student_id=student))
    else:
        profile.display_name, profile.student_id, profile.updated_at = name, student, utcnow()
    session.commit()


@router.post("/me/profile")
async def update_profile(request: Request, state: StateDep) -> Response:
    """A plain form (the attempts page works without JavaScript); the cross-site write guard protects it."""
    form = await read_form(request)
    try:
        values = ProfileIn(display_name=form.get("display_name", ""), student_id=form.get("student_id", ""))
    except ValidationError:
        raise UnprocessableContent("A display name has at most 80 characters, a student id at most 64.") from None
    learner = learner_for(request)
    await in_session(state, lambda session: save_profile(session=session, learner_id=learner, values=values))
    # Back to the page the form was on (a problem's attempts page), never another site (app.redirects).
    return RedirectResponse(local_path(form.get("next"), under=("/problems/",), default="/"), status_code=303)
