"""Deep linking: an instructor, launched from the LMS's "add content" screen, picks assignments of the course or
single problems, and PaperLab answers the platform with a signed `LtiDeepLinkingResponse` listing one resource
link per pick: PaperLab's launch URL, the pick in its custom parameters, and a line item (one point per problem)
so that the platform makes a gradebook column for it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem
from sqlalchemy.orm import Session

from app.courses.assignments import AssignmentOut, assignments_of
from app.errors import BadRequest, Forbidden, NotFound
from app.lti.adapters import registration_for
from app.lti.admission import ASSIGNMENT_PARAM, PROBLEM_PARAM
from app.lti.launch import CLAIM
from app.lti.models import LtiContext, LtiLaunch, LtiPlatform
from app.lti.runtime import LtiRuntime
from app.models import utcnow

SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


@dataclass(frozen=True)
class DeepLinkRequest:
    launch_id: str
    course_id: str
    return_url: str
    accept_multiple: bool
    title: str
    assignments: list[AssignmentOut]


@dataclass(frozen=True)
class DeepLinkAnswer:
    return_url: str
    jwt: str
    items: list[dict[str, Any]]


def _launch(session: Session, launch_id: str, instructor_id: str) -> tuple[LtiLaunch, dict[str, Any]]:
    launch = session.get(LtiLaunch, launch_id)
    if launch is None or launch.expires_at <= utcnow():
        raise NotFound("This content picker has expired; open it again from the LMS.")
    if launch.instructor_id != instructor_id:
        raise Forbidden("This content picker belongs to another instructor's launch.")
    return launch, json.loads(launch.claims)


def request_of(*, session: Session, launch_id: str, instructor_id: str) -> DeepLinkRequest:
    launch, claims = _launch(session, launch_id, instructor_id)
    settings = claims.get(SETTINGS) or {}
    context = claims.get(CLAIM + "context") or {}
    row = session.get(LtiContext, (launch.platform_id, str(context.get("id", ""))))
    if row is None or not settings.get("deep_link_return_url"):
        raise BadRequest("This launch is not a deep-linking request PaperLab can answer.")
    return DeepLinkRequest(launch_id=launch_id, course_id=row.course_id,
                           return_url=str(settings["deep_link_return_url"]),
                           accept_multiple=str(settings.get("accept_multiple", "true")).lower() != "false",
                           title=str(context.get("title") or ""),
                           assignments=assignments_of(session=session, course_id=row.course_id))


def answer(*, runtime: LtiRuntime, session: Session, launch_id: str, instructor_id: str, picks: list[str],
           launch_url: str, titles: dict[str, str]) -> DeepLinkAnswer:
    """`picks`: `assignment:<id>` and `problem:<slug>` values from the picker's form."""
    request = request_of(session=session, launch_id=launch_id, instructor_id=instructor_id)
    launch, claims = _launch(session, launch_id, instructor_id)
    if not picks:
        raise BadRequest("Pick at least one assignment or problem.")
    if len(picks) > 1 and not request.accept_multiple:
        raise BadRequest("The LMS takes one item here; pick one.")
    by_id = {a.id: a for a in request.assignments}
    resources = []
    for pick in picks:
        kind, _, value = pick.partition(":")
        if kind == "assignment" and value in by_id:
            assignment = by_id[value]
            title, points, custom = assignment.title, len(assignment.problems), {ASSIGNMENT_PARAM: value}
        elif kind == "problem" and value in titles:
            title, points, custom = titles[value], 1, {PROBLEM_PARAM: value}
        else:
            raise BadRequest(f"'{pick[:80]}' is neither an assignment of this course nor a problem on this server.")
        resources.append(DeepLinkResource().set_url(launch_url).set_title(title).set_custom_params(custom)
                         .set_target("window").set_lineitem(LineItem().set_score_maximum(points).set_label(title)
                                                            .set_resource_id(pick).set_tag("paperlab")))
    platform = session.get(LtiPlatform, launch.platform_id)
    assert platform is not None
    deep_link = DeepLink(registration_for(platform, runtime.signing_key()),
                         str(claims[CLAIM + "deployment_id"]), claims[SETTINGS])
    return DeepLinkAnswer(return_url=request.return_url, jwt=deep_link.get_response_jwt(resources),
                          items=[resource.to_dict() for resource in resources])
