"""Instructors sign in with a password; learners (and the signed-out) reach nothing under /instructor or
/api/instructor."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.instructor.routes import LOGIN_PATH
from tests.app.app_support import TestClient, every_route
from tests.app.conftest import Server
from tests.app.instructor_support import EMAIL, PASSWORD, csrf_from, make_instructor, sign_in


@pytest.fixture
def site(make_server: Callable[..., Server]) -> Server:
    server = make_server()
    make_instructor(server.app)
    return server


def guarded_routes(server: Server) -> list[tuple[str, str]]:
    """(method, path) of every instructor route but the sign-in form, path parameters filled in."""
    found: list[tuple[str, str]] = []
    for path, methods, parameters in every_route(server.app):
        if path == LOGIN_PATH or not path.startswith(("/instructor", "/api/instructor")):
            continue
        for name in parameters:
            path = path.replace("{" + name + "}", "x")
        found.extend((method, path) for method in sorted(methods))
    return found


def test_the_walk_finds_the_instructor_routes(site: Server) -> None:
    paths = {path for _, path in guarded_routes(site)}
    assert {"/instructor", "/api/instructor/problems/x/stats", "/instructor/logout"} <= paths


def test_a_learner_cookie_gets_403_from_every_instructor_route(site: Server) -> None:
    learner = site.learner()
    learner.get("/")  # the learner cookie is minted on the first visit
    assert learner.cookies.get("paperlab_learner")
    for method, path in guarded_routes(site):
        response = learner.request(method, path, follow_redirects=False)
        assert response.status_code == 403, (method, path, response.status_code)


def test_signed_out_the_api_answers_401_and_pages_redirect_to_sign_in(site: Server) -> None:
    for method, path in guarded_routes(site):
        response = TestClient(site.app).request(method, path, follow_redirects=False)
        if path.startswith("/api/"):
            assert response.status_code == 401, (method, path)
        else:
            assert response.status_code == 303, (method, path)
            assert response.headers["location"].startswith(f"{LOGIN_PATH}?next=")


def test_sign_in_sets_a_strict_httponly_session_cookie_and_opens_the_dashboard(site: Server) -> None:
    client = site.learner()
    response = sign_in(client)
    assert response.status_code == 303 and response.headers["location"] == "/instructor"
    cookie = next(h for h in response.headers.get_list("set-cookie") if h.startswith("paperlab_instructor="))
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    assert client.get("/instructor").status_code == 200
    assert client.get("/api/instructor/problems").status_code == 200


def test_the_session_cookie_is_secure_when_configured(make_server: Callable[..., Server]) -> None:
    server = make_server(cookie_secure=True)
    make_instructor(server.app)
    response = sign_in(TestClient(server.app, base_url="https://testserver"))  # a Secure cookie needs https
    cookie = next(h for h in response.headers.get_list("set-cookie") if h.startswith("paperlab_instructor="))
    assert "Secure" in cookie


def test_an_instructor_who_is_also_a_learner_in_this_browser_gets_in(site: Server) -> None:
    client = site.learner()
    client.get("/")
    sign_in(client)
    assert client.get("/instructor").status_code == 200


@pytest.mark.parametrize(
    "email, password",
    [
        pytest.param(EMAIL, "wrong password!!", id="wrong-password"),
        pytest.param("nobody@example.edu", PASSWORD, id="unknown-email"),
    ],
)
def test_a_wrong_email_or_password_is_refused_alike(site: Server, email: str, password: str) -> None:
    client = site.learner()
    response = sign_in(client, email=email, password=password)
    assert response.status_code == 401
    assert "do not match an instructor account" in response.text
    assert "paperlab_instructor" not in client.cookies


def test_the_sign_in_form_needs_its_csrf_token(site: Server) -> None:
    client = site.learner()
    client.get(LOGIN_PATH)
    response = client.post(LOGIN_PATH, data={"csrf_token": "forged", "email": EMAIL, "password": PASSWORD},
                           follow_redirects=False)
    assert response.status_code == 403


def test_signed_in_forms_need_the_session_csrf_token(site: Server) -> None:
    client = site.learner()
    sign_in(client)
    assert client.post("/instructor/logout", data={"csrf_token": "forged"}, follow_redirects=False).status_code == 403
    assert client.get("/instructor").status_code == 200  # still signed in


def test_sign_out_ends_the_session_on_the_server(site: Server) -> None:
    client = site.learner()
    sign_in(client)
    token = client.cookies["paperlab_instructor"]
    name, csrf = csrf_from(client.get("/instructor").text)
    response = client.post("/instructor/logout", data={name: csrf}, follow_redirects=False)
    assert response.status_code == 303
    replay = TestClient(site.app, cookies={"paperlab_instructor": token})  # a stolen copy of the cookie
    assert replay.get("/api/instructor/problems").status_code == 401


def test_sign_in_is_throttled_per_account(site: Server) -> None:
    client = site.learner()
    statuses = [sign_in(client, password=f"wrong password {n}").status_code for n in range(6)]
    assert statuses == [401] * 5 + [429]
    refused = sign_in(client)  # even the right password, until the window passes
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0


def test_sign_in_is_throttled_per_address_across_accounts(site: Server) -> None:
    client = site.learner()
    statuses = [sign_in(client, email=f"guess{n}@example.edu").status_code for n in range(31)]
    assert statuses[:30] == [401] * 30 and statuses[30] == 429


def test_a_successful_sign_in_does_not_count_against_the_account(site: Server) -> None:
    for _ in range(6):
        assert sign_in(site.learner()).status_code == 303


def test_next_only_leads_to_the_instructor_side(site: Server) -> None:
    response = sign_in(site.learner(), next="//evil.example/instructor")
    assert response.headers["location"] == "/instructor"
