"""Continue on another device (app.devices): the JSON API, and the pages that work without JavaScript."""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from app.api_tokens import ApiTokenCreated, ApiTokenOut, active_tokens
from app.deps import LearnerDep, StateDep, in_session
from app.devices import DeviceLinkOut, DeviceLinks, active_links, create_link, revoke_link, usable_link, use_link
from app.identity import STATE_KEY, LearnerCookie, resolve_secret_key
from app.routes.pages import with_learner
from app.state import AppState
from app.templating import render

router = APIRouter(prefix="/api", tags=["devices"])
pages_router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def device_links(state: AppState) -> DeviceLinks:
    links = getattr(state, "_device_links", None)
    if links is None:
        links = DeviceLinks(resolve_secret_key(state.settings))
        object.__setattr__(state, "_device_links", links)  # one per app, from the same secret as the cookie
    return cast(DeviceLinks, links)


def base_url(request: Request) -> str:
    return str(request.base_url)


@router.post("/device-links", status_code=status.HTTP_201_CREATED, response_model=DeviceLinkOut,
             responses={429: {"description": "5 unused links already"}})  # fmt: skip
async def new_device_link(request: Request, state: StateDep, learner: LearnerDep) -> DeviceLinkOut:
    """A link that, opened and confirmed in another browser within 30 minutes, makes it this learner. Once."""
    links, url = device_links(state), base_url(request)
    return await in_session(
        state, lambda session: create_link(session=session, links=links, learner_id=learner, base_url=url)
    )


@router.get("/device-links", response_model=list[DeviceLinkOut])
async def my_device_links(request: Request, state: StateDep, learner: LearnerDep) -> list[DeviceLinkOut]:
    """This learner's links that can still be used."""
    links, url = device_links(state), base_url(request)
    return await in_session(
        state, lambda session: active_links(session=session, links=links, learner_id=learner, base_url=url)
    )


@router.delete("/device-links/{link_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={404: {"description": "No such link of yours"}})  # fmt: skip
async def revoke_device_link(link_id: str, state: StateDep, learner: LearnerDep) -> Response:
    await in_session(state, lambda session: revoke_link(session=session, learner_id=learner, link_id=link_id))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# ------------------------------------------------------------------------------------------------- pages


@pages_router.get("/continue")
async def links_page(request: Request, state: StateDep) -> Response:
    return await continue_page(request, state)


@pages_router.post("/continue/links")
async def create_from_page(request: Request, state: StateDep) -> Response:
    links, url = device_links(state), base_url(request)
    created = await with_learner(
        state, request, lambda session, learner: create_link(session=session, links=links, learner_id=learner,
                                                             base_url=url)  # fmt: skip
    )
    return await continue_page(request, state, created=created)


@pages_router.post("/continue/links/{link_id}/revoke")
async def revoke_from_page(link_id: str, request: Request, state: StateDep) -> Response:
    await with_learner(
        state, request, lambda session, learner: revoke_link(session=session, learner_id=learner, link_id=link_id)
    )
    return RedirectResponse("/continue", status_code=303)


@pages_router.get("/continue/{token}")
async def confirm_page(token: str, request: Request, state: StateDep) -> Response:
    """Only asks: using the link is the POST, so that a link preview cannot use it up."""
    links = device_links(state)
    await in_session(state, lambda session: usable_link(session=session, links=links, token=token))
    return render(request, "continue_confirm.html", {"token": token})


@pages_router.post("/continue/{token}")
async def use_from_page(token: str, request: Request, state: StateDep) -> Response:
    links = device_links(state)
    learner_id = await in_session(state, lambda session: use_link(session=session, links=links, token=token))
    identity: LearnerCookie = getattr(request.state, STATE_KEY)
    identity.learner_id, identity.minted = learner_id, True  # the middleware sets the cookie on this response
    return RedirectResponse("/?continued=1", status_code=303)


async def continue_page(request: Request, state: AppState, *, created: DeviceLinkOut | None = None,
                        created_token: ApiTokenCreated | None = None) -> Response:  # fmt: skip
    """The learner's page for reaching PaperLab from elsewhere: device links, and API tokens (app.routes.tokens)."""
    links, url = device_links(state), base_url(request)

    def load(session: Session, learner: str) -> tuple[list[DeviceLinkOut], list[ApiTokenOut]]:
        return (active_links(session=session, links=links, learner_id=learner, base_url=url),
                active_tokens(session=session, learner_id=learner))  # fmt: skip

    active, tokens = await with_learner(state, request, load)
    context = {"created": created, "links": active, "created_token": created_token, "tokens": tokens,
               "site_url": url.rstrip("/")}  # fmt: skip
    return render(request, "continue.html", context)
