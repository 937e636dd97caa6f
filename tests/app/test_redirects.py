"""Hostile `next` parameters: the instructor's sign-in form and the learner's profile form send the browser
back where it came from, and never to another site, whatever the value (absolute URLs, scheme-relative `//host`,
`/\\host` that browsers read as `//host`, backslashes, other schemes, percent-encoded and control-character
spellings of the same)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote

import pytest

from app.instructor.routes import LOGIN_PATH
from app.main import create_app
from app.redirects import local_path
from app.settings import Settings
from tests.app.app_support import PROBLEMS, HeldGrader, TestClient, held_backend
from tests.app.conftest import Server
from tests.app.instructor_support import make_instructor, sign_in

HOSTILE_NEXT = [
    pytest.param("https://evil.example/instructor", id="absolute-url"),
    pytest.param("http://evil.example/problems/add_one/history", id="absolute-http"),
    pytest.param("//evil.example/instructor", id="scheme-relative"),
    pytest.param("///evil.example/instructor", id="three-slashes"),
    pytest.param("/\\evil.example/instructor", id="slash-backslash"),
    pytest.param("\\\\evil.example/instructor", id="two-backslashes"),
    pytest.param("\\/evil.example/instructor", id="backslash-slash"),
    pytest.param("/\t/evil.example/instructor", id="tab-between-slashes"),
    pytest.param(" //evil.example/instructor", id="leading-space"),
    pytest.param("http:evil.example/instructor", id="scheme-without-slashes"),
    pytest.param("https:/evil.example/instructor", id="scheme-one-slash"),
    pytest.param("javascript:alert(document.domain)//instructor", id="javascript-scheme"),
    pytest.param("data:text/html,<script>alert(1)</script>", id="data-scheme"),
    pytest.param("%2F%2Fevil.example/instructor", id="encoded-slashes"),
    pytest.param("/%2F/evil.example/instructor", id="encoded-second-slash"),
    pytest.param("/%5Cevil.example/instructor", id="encoded-backslash"),
    pytest.param("%252F%252Fevil.example", id="double-encoded-slashes"),
    pytest.param("/instructor/../\\evil.example", id="dot-segments-then-backslash"),
    pytest.param("/problems/add_one/history/..\\..\\..\\\\evil.example", id="backslash-dot-segments"),
    pytest.param("/instructor\r\nLocation: https://evil.example", id="header-injection"),
    pytest.param("/instructor@evil.example", id="userinfo-lookalike"),
    pytest.param("https://testserver@evil.example/instructor", id="userinfo-host"),
]


def assert_stays_on_this_site(location: str) -> None:
    """A `Location` a browser resolves on this site: a path that begins with exactly one slash, with no
    backslash, control character or whitespace anywhere (browsers drop tabs and newlines and read `\\` as `/`),
    whose percent-decoded form does not begin with two slashes either."""
    assert location.startswith("/"), location
    for candidate in (location, unquote(location), unquote(unquote(location))):
        assert not candidate.startswith(("//", "/\\")), location
    assert "\\" not in location, location
    assert not any(ord(char) < 0x21 or ord(char) == 0x7F for char in location), location


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One site for the module (nothing here grades; successful sign-ins do not count against the limits)."""
    root = tmp_path_factory.mktemp("redirects")
    settings = Settings(_env_file=None, database_url=f"sqlite:///{root / 'paperlab.db'}",
                        var_dir=root / "var", problems_dir=PROBLEMS, celery_broker_url=None,
                        secret_key="test-secret-key-0123456789abcdef")
    app = create_app(settings, backend_factory=held_backend(HeldGrader()))
    with TestClient(app) as client:
        make_instructor(app)
        yield Server(app=app, client=client)


@pytest.mark.parametrize("hostile", HOSTILE_NEXT)
def test_signing_in_never_leads_off_site(site: Server, hostile: str) -> None:
    response = sign_in(site.learner(), next=hostile)
    assert response.status_code == 303
    location = response.headers["location"]
    assert_stays_on_this_site(location)
    assert location == "/instructor"  # no odd spelling is kept: the dashboard


@pytest.mark.parametrize("hostile", HOSTILE_NEXT)
def test_the_sign_in_form_carries_only_a_safe_next(site: Server, hostile: str) -> None:
    page = site.learner().get(LOGIN_PATH, params={"next": hostile})
    assert page.status_code == 200
    assert 'name="next" value="/instructor"' in page.text


@pytest.mark.parametrize("hostile", HOSTILE_NEXT)
def test_saving_a_profile_never_leads_off_site(site: Server, hostile: str) -> None:
    response = site.learner().post("/me/profile", data={"display_name": "Ada", "next": hostile},
                                   follow_redirects=False)
    assert response.status_code == 303
    assert_stays_on_this_site(response.headers["location"])
    assert response.headers["location"] == "/"  # no odd spelling is kept: the home page


@pytest.mark.parametrize(
    ("next_path", "expected"),
    [
        pytest.param("/instructor/learners", "/instructor/learners", id="instructor-page"),
        pytest.param("/instructor/problems/add_one?tab=checks", "/instructor/problems/add_one?tab=checks",
                     id="with-query"),
        pytest.param("/problems/add_one", "/instructor", id="a-learner-page-is-not-the-instructor-side"),
        pytest.param("/instructors", "/instructor", id="a-prefix-is-a-whole-segment"),
    ],
)
def test_signing_in_returns_to_the_instructor_page_asked_for(site: Server, next_path: str, expected: str) -> None:
    response = sign_in(site.learner(), next=next_path)
    assert response.headers["location"] == expected


def test_saving_a_profile_returns_to_the_attempts_page(site: Server) -> None:
    response = site.learner().post("/me/profile", data={"display_name": "Ada", "next": "/problems/add_one/history"},
                                   follow_redirects=False)
    assert response.headers["location"] == "/problems/add_one/history"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("/problems/add_one/history", "/problems/add_one/history", id="a-page-under-the-prefix"),
        pytest.param("/problems/add_one/history?x=1#top", "/problems/add_one/history?x=1#top", id="query-fragment"),
        pytest.param("/problems/add%20one", "/problems/add%20one", id="encoded-space-is-fine"),
        pytest.param("/problems/../instructor", "/", id="dot-dot-leaves-the-prefix"),
        pytest.param("/problems/%2e%2e/instructor", "/", id="encoded-dot-dot"),
        pytest.param("/problems/./x", "/", id="dot-segment"),
        pytest.param("/problemsx", "/", id="not-a-whole-segment"),
        pytest.param("", "/", id="empty"),
        pytest.param(None, "/", id="absent"),
    ],
)
def test_local_path_keeps_only_plain_paths_under_the_prefix(value: str | None, expected: str) -> None:
    assert local_path(value, under=("/problems/",), default="/") == expected
