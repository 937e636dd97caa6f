"""Cross-site request forgery: every state-changing request (POST, PUT, PATCH, DELETE) that a browser sends from
another site is refused with a 403 that says why, on every route, before any route runs; requests from this
site's pages and programmatic clients (no `Origin`, no `Sec-Fetch-Site`: a script, curl, the benchmark) work as
before. The guard is app.security.CrossSiteWriteMiddleware."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from app.instructor.models import LearnerProfile
from app.lti.routes import EXEMPT_FROM_CROSS_SITE_GUARD
from app.main import create_app
from app.models import Learner, Submission
from app.settings import Settings
from tests.app.app_support import CORRECT, PROBLEMS, HeldGrader, TestClient, every_route, held_backend, submit
from tests.app.conftest import Server
from tests.app.instructor_support import EMAIL, PASSWORD, csrf_from, make_instructor

STATE_CHANGING = ("POST", "PUT", "PATCH", "DELETE")
THIS_SITE = "http://testserver"

HOSTILE_HEADERS = [
    pytest.param({"origin": "https://evil.example"}, id="foreign-origin"),
    pytest.param({"origin": "null"}, id="opaque-origin"),
    pytest.param({"origin": "http://testserver.evil.example"}, id="lookalike-origin"),
    pytest.param({"origin": "http://evil.example@testserver"}, id="userinfo-origin"),
    pytest.param({"sec-fetch-site": "cross-site"}, id="sec-fetch-site-cross-site"),
    pytest.param({"sec-fetch-site": "same-site"}, id="sec-fetch-site-same-site"),
    pytest.param({"origin": THIS_SITE, "sec-fetch-site": "cross-site"}, id="own-origin-but-cross-site"),
    pytest.param({"origin": "https://evil.example", "sec-fetch-site": "same-origin"}, id="foreign-origin-same-fetch"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One site for the module; its grader grades at once (these tests are about who may write, not verdicts)."""
    root = tmp_path_factory.mktemp("cross-site")
    settings = Settings(_env_file=None, database_url=f"sqlite:///{root / 'paperlab.db'}",
                        var_dir=root / "var", problems_dir=PROBLEMS, celery_broker_url=None,
                        secret_key="test-secret-key-0123456789abcdef")
    grader = HeldGrader()
    grader.release.set()
    app = create_app(settings, backend_factory=held_backend(grader))
    with TestClient(app) as client:
        make_instructor(app)
        yield Server(app=app, client=client)


def state_changing_routes(site: Server) -> list[tuple[str, str]]:
    """(method, path) of every route that changes state, path parameters filled in; but LTI's login and launch,
    which an LMS's page posts to by design and which authenticate the post itself (a signed id_token, a state
    PaperLab issued and its cookie: tests/app/test_lti.py refuses each forgery)."""
    found: list[tuple[str, str]] = []
    for path, methods, parameters in every_route(site.app):
        if path in EXEMPT_FROM_CROSS_SITE_GUARD:
            continue
        for name in parameters:
            path = path.replace("{" + name + "}", "add_one" if name == "slug" else "x")
        found.extend((method, path) for method in sorted(methods & set(STATE_CHANGING)))
    return found


def rows(site: Server, model: type) -> int:
    with site.app.state.paperlab.session_factory() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_only_ltis_login_and_launch_are_exempt() -> None:
    assert set(EXEMPT_FROM_CROSS_SITE_GUARD) == {"/lti/login", "/lti/launch"}


def test_the_walk_finds_the_state_changing_routes(site: Server) -> None:
    found = set(state_changing_routes(site))
    assert {("POST", "/api/problems/add_one/submissions"), ("POST", "/me/profile"), ("POST", "/instructor/login"),
            ("POST", "/instructor/logout")} <= found


@pytest.mark.parametrize("headers", HOSTILE_HEADERS)
def test_every_state_changing_route_refuses_a_cross_site_request(site: Server, headers: dict[str, str]) -> None:
    before = (rows(site, Learner), rows(site, Submission), rows(site, LearnerProfile))
    for method, path in state_changing_routes(site):
        browser = TestClient(site.app)
        response = browser.request(method, path, headers=headers, json={"code": CORRECT, "display_name": "Mallory"},
                                   follow_redirects=False)
        assert response.status_code == 403, (method, path, response.status_code)
        assert response.json()["detail"].startswith("Cross-site request refused: "), (method, path)
        assert "paperlab_learner" not in response.cookies  # refused before anything, a learner id included
    assert (rows(site, Learner), rows(site, Submission), rows(site, LearnerProfile)) == before


@pytest.mark.parametrize("method", STATE_CHANGING)
@pytest.mark.parametrize("path", ["/api/problems/add_one/submissions", "/me/profile", "/no/such/route"])
def test_any_write_method_is_refused_on_any_path(site: Server, method: str, path: str) -> None:
    response = TestClient(site.app).request(method, path, headers={"origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["detail"] == (
        "Cross-site request refused: Origin 'https://evil.example' is not this site (testserver)."
    )


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        pytest.param({"origin": "https://evil.example"}, "Origin 'https://evil.example' is not this site",
                     id="origin"),
        pytest.param({"sec-fetch-site": "cross-site"}, "Sec-Fetch-Site is 'cross-site'", id="sec-fetch-site"),
    ],
)
def test_the_refusal_names_the_header_that_gave_it_away(site: Server, headers: dict[str, str], reason: str) -> None:
    response = submit(TestClient(site.app), CORRECT, headers=headers)
    assert response.status_code == 403 and reason in response.json()["detail"]


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_reading_is_never_refused_for_its_origin(site: Server, method: str) -> None:
    response = TestClient(site.app).request(method, "/api/problems", headers={"origin": "https://evil.example",
                                                                               "sec-fetch-site": "cross-site"})
    assert response.status_code != 403


FRIENDLY_HEADERS = [
    pytest.param({}, id="programmatic-client-no-origin-no-fetch-metadata"),
    pytest.param({"origin": THIS_SITE}, id="same-origin-without-fetch-metadata"),
    pytest.param({"origin": THIS_SITE, "sec-fetch-site": "same-origin"}, id="browser-same-origin"),
    pytest.param({"sec-fetch-site": "same-origin"}, id="fetch-metadata-without-origin"),
    pytest.param({"sec-fetch-site": "none"}, id="user-initiated"),
]


@pytest.mark.parametrize("headers", FRIENDLY_HEADERS)
def test_this_sites_pages_and_scripts_still_submit(site: Server, headers: dict[str, str]) -> None:
    assert submit(TestClient(site.app), CORRECT, headers=headers).status_code == 202


@pytest.mark.parametrize("headers", FRIENDLY_HEADERS)
def test_this_sites_profile_form_still_saves(site: Server, headers: dict[str, str]) -> None:
    response = TestClient(site.app).post("/me/profile", headers=headers, follow_redirects=False,
                                         data={"display_name": "Ada", "next": "/problems/add_one/history"})
    assert response.status_code == 303


@pytest.mark.parametrize("headers", FRIENDLY_HEADERS)
def test_this_sites_sign_in_form_still_signs_in(site: Server, headers: dict[str, str]) -> None:
    browser = TestClient(site.app)
    name, token = csrf_from(browser.get("/instructor/login").text)
    response = browser.post("/instructor/login", headers=headers, follow_redirects=False,
                            data={name: token, "email": EMAIL, "password": PASSWORD})
    assert response.status_code == 303 and response.headers["location"] == "/instructor"
