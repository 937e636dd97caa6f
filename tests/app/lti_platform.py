"""An LTI 1.3 platform (an LMS) for the tests, built on the `lti1p3platform` library and served over HTTP: its
OIDC authorization endpoint signs id_tokens (resource-link and deep-linking launches, with the Assignment and
Grade Services and Names and Role claims), its token endpoint checks PaperLab's signed client assertion against
PaperLab's published JWKS, its line items take scores into a gradebook, its roster service lists a class, and
its deep-linking return URL checks PaperLab's signed response. The protocol work is the library's; this module
gives it storage (a course, its users, line items, scores) and routes.

The library's FastAPI adapter is not used: its template module imports `pkg_resources`, which warns on import
(an error under the suite's filterwarnings); its launch form is three lines, written here."""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jwcrypto.jwk import JWK
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequestBase
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService, TPage

CLIENT_ID = "paperlab-client"
DEPLOYMENT_ID = "deployment-1"
CONTEXT = {"id": "course-ml-2027", "title": "Machine Learning 2027", "label": "ML"}
LEARNER_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
TEACHER_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@dataclass
class LmsUser:
    sub: str
    name: str
    email: str
    roles: list[str]
    student_id: str = ""


@dataclass
class Gradebook:
    """The platform's storage: line items, scores received, content items received by deep linking."""

    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (line item, user) -> latest
    deep_link_items: list[dict[str, Any]] = field(default_factory=list)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)  # resource link id -> {title, custom, lineitem}
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Platform:
    url: str
    tool_url: str
    private_pem: str
    public_pem: str
    users: dict[str, LmsUser]
    book: Gradebook = field(default_factory=Gradebook)

    @property
    def issuer(self) -> str:
        return self.url

    def registration(self) -> Registration:
        return (Registration().set_iss(self.issuer).set_client_id(CLIENT_ID).set_deployment_id(DEPLOYMENT_ID)
                .set_oidc_login_url(f"{self.tool_url}/lti/login").set_launch_url(f"{self.tool_url}/lti/launch")
                .set_deeplink_launch_url(f"{self.tool_url}/lti/launch")
                .set_tool_key_set_url(f"{self.tool_url}/lti/jwks.json")
                .set_platform_public_key(self.public_pem).set_platform_private_key(self.private_pem))

    def sign(self, claims: dict[str, Any]) -> str:
        """A message signed with the platform's key, as the library signs id_tokens (for hand-made launches)."""
        token: str = self.registration().platform_encode_and_sign(claims, expiration=300)
        return token

    def wait_for_score(self, sub: str, timeout_s: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.book.lock:
                found = [score for (_, user), score in self.book.scores.items() if user == sub]
            if found:
                return found[-1]
            time.sleep(0.1)
        raise AssertionError(f"no score for {sub} reached the platform within {timeout_s} s")


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["platform"].registration()

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        assert self._registration is not None
        return self._registration


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> RedirectResponse:
        return RedirectResponse(url, status_code=302)


class _Launch(LTIAdvantageMessageLaunchAbstract):
    """The authorization endpoint's answer: the launch message for the hinted user and link, signed."""

    def __init__(self, request: Request, conf: _Conf, platform: Platform) -> None:
        super().__init__(request, conf)
        self._platform = platform

    def get_preflight_response(self) -> dict[str, Any]:
        assert isinstance(self._request, Request)
        return dict(self._request.query_params)

    def prepare_launch(self, preflight_response: dict[str, Any]) -> None:
        hint = json.loads(preflight_response["lti_message_hint"])
        user = self._platform.users[preflight_response["login_hint"]]
        self.set_user_data(user.sub, user.roles, full_name=user.name, email_address=user.email)
        if user.student_id:
            self.set_extra_claims({"https://purl.imsglobal.org/spec/lti/claim/lis":
                                   {"person_sourcedid": user.student_id}})
        self.set_launch_context_claim(CONTEXT["id"], context_title=CONTEXT["title"], context_label=CONTEXT["label"])
        base = self._platform.url
        self.set_nrps(f"{base}/memberships")
        if hint["kind"] == "deep_link":
            self.set_dl(f"{base}/deep-link-return", title="Add content", accept_types={"ltiResourceLink"})
            return
        link = self._platform.book.links[hint["link"]]
        self.set_resource_link_claim(hint["link"], title=link["title"])
        self.set_custom_parameters_claim(link.get("custom") or {})
        self.set_ags(f"{base}/lineitems", lineitem_url=link.get("lineitem"), allow_creating_lineitems=True)

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> HTMLResponse:
        fields = "".join(f'<input type="hidden" name="{name}" value="{html.escape(str(launch_data[name]))}">'
                         for name in ("id_token", "state"))
        return HTMLResponse(f'<form method="post" action="{html.escape(launch_data["launch_url"])}" '
                            f'id="launch">{fields}</form>')


class _ServiceRequest(PlatformRequestBase):
    def __init__(self, metadata: dict[str, Any]) -> None:
        self.request = metadata

    def build_metadata(self, request: Any) -> Any:
        return request


async def _service_request(request: Request) -> _ServiceRequest:
    body = await request.body()
    json_body = json.loads(body) if body and "json" in request.headers.get("content-type", "") else None
    return _ServiceRequest({"method": request.method, "form_data": {}, "get_data": dict(request.query_params),
                            "headers": request.headers, "content_type": request.headers.get("content-type"),
                            "path": request.url.path, "json": json_body})


class _Grades(AssignmentsGradesService):
    def __init__(self, request: _ServiceRequest, conf: _Conf, platform: Platform) -> None:
        super().__init__(request, conf, f"{platform.url}/lineitems")
        self._book = platform.book
        self._url = platform.url

    def find_lineitems(self, page: int = 1, limit: int | None = None, line_item_id: str | None = None,
                       resource_link_id: str | None = None, resource_id: str | None = None,
                       tag: str | None = None) -> TPage:
        with self._book.lock:
            items = [item for item in self._book.lineitems.values()
                     if (resource_link_id is None or item.get("resourceLinkId") == resource_link_id)
                     and (tag is None or item.get("tag") == tag)]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id: str) -> Any:
        return self._book.lineitems[line_item_id]

    def create_lineitem(self, creation_data: Any) -> Any:
        with self._book.lock:
            number = str(len(self._book.lineitems) + 1)
            item = {**creation_data, "id": f"{self._url}/lineitems/{number}"}
            self._book.lineitems[number] = item
        return item

    def update_lineitem(self, update_data: Any) -> Any:
        raise NotImplementedError

    def delete_lineitem(self, line_item_id: str) -> None:
        raise NotImplementedError

    def update_score(self, line_item_id: str, score: Any) -> Any:
        from lti1p3platform.score import UpdateScoreStatus

        with self._book.lock:
            key = (line_item_id, str(score["userId"]))
            previous = self._book.scores.get(key)
            if previous is not None and previous["timestamp"] >= score["timestamp"]:
                return UpdateScoreStatus.OLD_TIMESTAMP
            self._book.scores[key] = score
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None,
                    user_id: str | None = None) -> TPage:
        return {"content": [], "has_next": False, "next": None}


class _Roster(NamesRoleProvisioningService):
    def __init__(self, request: _ServiceRequest, conf: _Conf, platform: Platform) -> None:
        super().__init__(request, conf, f"{platform.url}/memberships")
        self._platform = platform

    def get_member_data_page(self, page: int = 1, limit: int | None = None, role: str | None = None,
                             since: str | None = None) -> TPage:
        members = [{"user_id": u.sub, "roles": u.roles, "name": u.name, "email": u.email, "status": "Active",
                    **({"lis_person_sourcedid": u.student_id} if u.student_id else {})}
                   for u in self._platform.users.values()]
        return {"content": members, "has_next": False, "next": None}

    def get_context_by_id(self) -> Any:
        from lti1p3platform.membership import Context

        return Context(id=CONTEXT["id"], label=CONTEXT["label"], title=CONTEXT["title"])


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded body (Starlette's own form parser needs python-multipart, which nothing else here needs)."""
    from urllib.parse import parse_qs

    return {name: values[0] for name, values in parse_qs((await request.body()).decode()).items()}


def _respond(result: Any) -> Response:
    if result.result is None:  # a score taken (no body, as AGS allows), or a refusal that says why
        return Response(status_code=result.code, content=b"" if result.code < 400 else result.message)
    return JSONResponse(result.result, status_code=result.code, media_type=result.media_type)


def platform_app(platform: Platform) -> FastAPI:
    app = FastAPI()

    def conf() -> _Conf:
        return _Conf(platform=platform)

    @app.get("/jwks")
    def jwks() -> Any:
        return conf().get_jwks() if conf().get_registration() else None

    @app.get("/start")
    def start(user: str, kind: str = "resource", link: str = "") -> Any:
        """What a click in the LMS does: the third-party-initiated login at the tool."""
        login = _Login(None, conf())
        login.set_lti_message_hint(hint=json.dumps({"kind": kind, "link": link}))
        return login.initiate_login(user)

    @app.get("/auth")
    def auth(request: Request) -> Any:
        return _Launch(request, conf(), platform).lti_launch()

    @app.post("/token")
    async def token(request: Request) -> Any:
        form = await _form(request)
        try:
            return conf().get_access_token(form)
        except Exception as exc:  # the library says why in its exception; a platform answers 400 then
            return JSONResponse({"error": "invalid_client", "error_description": str(exc)}, status_code=400)

    @app.post("/deep-link-return")
    async def deep_link_return(request: Request) -> Any:
        form = await _form(request)
        try:
            items = conf().validate_deeplinking_resp(form)
        except Exception as exc:  # the library says why; the tool's test reads it
            return HTMLResponse(f"Refused: {type(exc).__name__}: {exc}", status_code=400)
        with platform.book.lock:
            platform.book.deep_link_items.extend(items)
        return HTMLResponse(f"<p>Received {len(items)} items.</p>")

    @app.api_route("/lineitems", methods=["GET", "POST"])
    async def lineitems(request: Request) -> Response:
        service = _Grades(await _service_request(request), conf(), platform)
        handler = service.handle_get_lineitems if request.method == "GET" else service.handle_create_lineitem
        return _respond(service.handle_resp(handler))

    @app.post("/lineitems/{number}/scores")
    async def scores(number: str, request: Request) -> Response:
        service = _Grades(await _service_request(request), conf(), platform)
        return _respond(service.handle_resp(service.handle_update_score, line_item_id=number))

    @app.get("/memberships")
    async def memberships(request: Request) -> Response:
        service = _Roster(await _service_request(request), conf(), platform)
        return _respond(service.handle_resp(service.handle_get_members))

    return app


def new_key_pair() -> tuple[str, str]:
    jwk = JWK.generate(kty="RSA", size=2048)
    return jwk.export_to_pem(private_key=True, password=None).decode(), jwk.export_to_pem().decode()


class ThreadServer:
    """uvicorn serving `app` on 127.0.0.1:`port` in a thread of the test process."""

    def __init__(self, app: Any, port: int) -> None:
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                    lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def serving(app: Any, port: int) -> Iterator[ThreadServer]:
    with ThreadServer(app, port) as server:
        yield server
