"""Personal API tokens (app.api_tokens): made, listed and revoked by the learner's browser, as JSON and as the
learner's page's forms (the "Solve from your editor" section of /continue); a token itself may only read and
revoke itself (`/api/tokens/current`, what `paperlab login` and `paperlab logout` use). Which routes a token
opens is app.token_auth's allow-list."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from app.api_tokens import (
    ApiTokenCreate,
    ApiTokenCreated,
    ApiTokenOut,
    active_tokens,
    create_token,
    read_token,
    revoke_token,
)
from app.deps import LearnerDep, StateDep, in_session
from app.errors import NotFound, UnprocessableContent
from app.instructor.auth import read_form
from app.routes.devices import continue_page
from app.routes.pages import with_learner
from app.token_auth import token_holder

router = APIRouter(prefix="/api", tags=["tokens"])
pages_router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

NOT_YOURS: dict[int | str, dict[str, str]] = {404: {"description": "No such token of yours"}}
BROWSER_ONLY = "Made, listed and revoked from the browser only: a request carrying an API token gets 403."


@router.post("/tokens", status_code=status.HTTP_201_CREATED, response_model=ApiTokenCreated,
             responses={429: {"description": "10 working tokens already"}}, description=BROWSER_ONLY)  # fmt: skip
async def new_token(body: ApiTokenCreate, state: StateDep, learner: LearnerDep) -> ApiTokenCreated:
    """A token that acts as this learner through the solving API. The answer holds the token: the only time it
    is shown (the server keeps its hash)."""
    return await in_session(state, lambda session: create_token(session=session, learner_id=learner, request=body))


@router.get("/tokens", response_model=list[ApiTokenOut], description=BROWSER_ONLY)
async def my_tokens(state: StateDep, learner: LearnerDep) -> list[ApiTokenOut]:
    """This learner's tokens that still work (never the tokens themselves)."""
    return await in_session(state, lambda session: active_tokens(session=session, learner_id=learner))


@router.get("/tokens/current", response_model=ApiTokenOut,
            responses={404: {"description": "The request carries no API token"}})  # fmt: skip
async def current_token(request: Request, state: StateDep, learner: LearnerDep) -> ApiTokenOut:
    """The token this request was made with (`paperlab login` checks a token with it)."""
    token_id = _token_id(request)
    return await in_session(state, lambda session: read_token(session=session, learner_id=learner, token_id=token_id))


@router.delete("/tokens/current", status_code=status.HTTP_204_NO_CONTENT,
               responses={404: {"description": "The request carries no API token"}})  # fmt: skip
async def revoke_current_token(request: Request, state: StateDep, learner: LearnerDep) -> Response:
    """Revoke the token this request was made with (`paperlab logout`)."""
    token_id = _token_id(request)
    await in_session(state, lambda session: revoke_token(session=session, learner_id=learner, token_id=token_id))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_YOURS,
               description=BROWSER_ONLY)  # fmt: skip
async def revoke_my_token(token_id: str, state: StateDep, learner: LearnerDep) -> Response:
    await in_session(state, lambda session: revoke_token(session=session, learner_id=learner, token_id=token_id))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _token_id(request: Request) -> str:
    holder = token_holder(request.scope.get("state", {}))
    if holder is None:
        raise NotFound("This request was not made with an API token (send `Authorization: Bearer <token>`).")
    return holder.token_id


# ------------------------------------------------------------------------------------------------- pages


@pages_router.post("/continue/tokens")
async def create_from_page(request: Request, state: StateDep) -> Response:
    form = await read_form(request)
    days = form.get("expires_in_days", "90")
    try:
        body = ApiTokenCreate.model_validate({"name": form.get("name", ""),
                                              "expires_in_days": int(days) if days.isdigit() else days})  # fmt: skip
    except ValidationError:
        raise UnprocessableContent(
            "A token needs a name of at most 60 characters and a lifetime of 7, 30, 90 or 365 days."
        ) from None
    created = await with_learner(
        state, request, lambda session, learner: create_token(session=session, learner_id=learner, request=body)
    )
    page = await continue_page(request, state, created_token=created)
    page.headers["Cache-Control"] = "no-store"  # the token is in this page: never from a cache, nor the back button
    return page


@pages_router.post("/continue/tokens/{token_id}/revoke")
async def revoke_from_page(token_id: str, request: Request, state: StateDep) -> Response:
    await with_learner(
        state, request, lambda session, learner: revoke_token(session=session, learner_id=learner, token_id=token_id)
    )
    return RedirectResponse("/continue#api-tokens", status_code=303)
