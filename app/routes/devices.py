"""Continue on another device (app.devices): the JSON API, and the pages that work without JavaScript."""

from __future__ import annotations

import io
from typing import cast

import segno
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


# The link just made, for the page the form's POST redirects to (Post/Redirect/Get: the address bar then says
# /continue, and a reload does not make another link). Only the link's id, on this path, for a minute.
NEW_LINK_COOKIE = "paperlab_new_link"
NEW_LINK_MAX_AGE_S = 60


@pages_router.get("/continue")
async def links_page(request: Request, state: StateDep) -> Response:
    response = await continue_page(request, state, new_link_id=request.cookies.get(NEW_LINK_COOKIE))
    if NEW_LINK_COOKIE in request.cookies:
        response.delete_cookie(NEW_LINK_COOKIE, path="/continue")
    return response


@pages_router.post("/continue/links")
async def create_from_page(request: Request, state: StateDep) -> Response:
    links, url = device_links(state), base_url(request)
    created = await with_learner(
        state, request, lambda session, learner: create_link(session=session, links=links, learner_id=learner,
                                                             base_url=url)  # fmt: skip
    )
    response = RedirectResponse("/continue", status_code=303)
    response.set_cookie(NEW_LINK_COOKIE, created.id, max_age=NEW_LINK_MAX_AGE_S, path="/continue", httponly=True,
                        samesite="strict", secure=state.settings.cookie_secure)  # fmt: skip
    return response


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


async def continue_page(request: Request, state: AppState, *, new_link_id: str | None = None,
                        created_token: ApiTokenCreated | None = None) -> Response:  # fmt: skip
    """The learner's page for reaching PaperLab from elsewhere: device links (the one just made, with its QR
    code), and API tokens (app.routes.tokens shows a new one here, once)."""
    links, url = device_links(state), base_url(request)

    def load(session: Session, learner: str) -> tuple[list[DeviceLinkOut], list[ApiTokenOut]]:
        return (active_links(session=session, links=links, learner_id=learner, base_url=url),
                active_tokens(session=session, learner_id=learner))  # fmt: skip

    active, tokens = await with_learner(state, request, load)
    created = next((link for link in active if link.id == new_link_id), None)  # only one of this learner's
    qr_svg = link_qr_svg(created.url) if created is not None else ""
    context = {"created": created, "links": active, "qr_svg": qr_svg, "created_token": created_token,
               "tokens": tokens, "site_url": url.rstrip("/")}  # fmt: skip
    return render(request, "continue.html", context)


def link_qr_svg(url: str) -> str:
    """The link as a QR code (SVG markup, no script, no text from outside but the path data), for a phone's
    camera. Error correction M survives a smudged screen; the border is the four modules the standard asks."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=4, xmldecl=False, svgns=True,
                                     svgclass="device-links__qr-code", dark="#000000", light="#ffffff")  # fmt: skip
    return buffer.getvalue().decode("ascii")
