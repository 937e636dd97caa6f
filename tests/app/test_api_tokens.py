"""Personal API tokens: made by a learner's browser, shown once, stored as a hash, acting as that learner and
nobody else through the solving API, refused everywhere else (instructor routes above all), revocable,
expiring, limited like the page, and never written to a log."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from app.api_tokens import MAX_ACTIVE_TOKENS, TOKEN_PREFIX
from app.models import ApiToken, utcnow
from app.state import TOKEN_FAILURES_PER_ADDRESS
from tests.app.app_support import CORRECT, WRONG, TestClient, from_address, read_events, submit, wait_for_verdict
from tests.app.conftest import Server
from tests.app.instructor_support import make_instructor, sign_in
from tests.app.test_instructor_auth import guarded_routes


def make_token(browser: TestClient, **body: Any) -> dict[str, Any]:
    response = browser.post("/api/tokens", json={"name": "laptop", **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def holder(server: Server, token: str) -> TestClient:
    """A programmatic client: no cookie jar in use, no Origin, only the token (as the `paperlab` command)."""
    return TestClient(server.app, headers=bearer(token))


@pytest.fixture
def browser(server: Server) -> TestClient:
    client = server.learner()
    client.get("/")  # the learner cookie is minted on the first visit
    return client


@pytest.fixture
def token(browser: TestClient) -> str:
    value: str = make_token(browser)["token"]
    return value


# ------------------------------------------------------------------------------------------ made and shown once


def test_a_new_token_is_shown_once_and_listed_without_it(browser: TestClient) -> None:
    created = make_token(browser, expires_in_days=30)
    assert created["token"].startswith(TOKEN_PREFIX) and created["token"].startswith(created["prefix"])
    assert created["name"] == "laptop" and created["last_used_at"] is None
    assert timedelta(days=29) < _parse(created["expires_at"]) - _parse(created["created_at"]) <= timedelta(days=30)
    listed = browser.get("/api/tokens").json()
    assert [t["id"] for t in listed] == [created["id"]]
    assert "token" not in listed[0] and created["token"] not in browser.get("/api/tokens").text


def test_the_database_keeps_only_the_tokens_sha256(server: Server, browser: TestClient) -> None:
    created = make_token(browser)
    with server.app.state.paperlab.session_factory() as session:
        row = session.scalars(select(ApiToken)).one()
        assert row.token_hash == hashlib.sha256(created["token"].encode()).hexdigest()
        stored = [str(getattr(row, column.key)) for column in ApiToken.__table__.columns]
    assert not any(created["token"] in value for value in stored)


@pytest.mark.parametrize("body", [
    pytest.param({"expires_in_days": 1000}, id="a-lifetime-not-offered"),
    pytest.param({"name": "x" * 61}, id="a-name-too-long"),
])  # fmt: skip
def test_a_token_request_out_of_bounds_is_422(browser: TestClient, body: dict[str, Any]) -> None:
    assert browser.post("/api/tokens", json=body).status_code == 422


def test_a_learner_holds_at_most_ten_working_tokens(browser: TestClient) -> None:
    for _ in range(MAX_ACTIVE_TOKENS):
        make_token(browser)
    refused = browser.post("/api/tokens", json={"name": "one more"})
    assert refused.status_code == 429 and "revoke one" in refused.json()["detail"]


# ---------------------------------------------------------------------------------- the learner, and no other


def test_a_token_submits_as_the_learner_who_made_it(server: Server, browser: TestClient, token: str) -> None:
    cli = holder(server, token)
    response = submit(cli, WRONG)
    assert response.status_code == 202, response.text
    submission_id = response.json()["id"]
    body = wait_for_verdict(cli, submission_id)
    assert body["summary"]["tone"] == "failed" and body["summary"]["text"].startswith("Not solved yet")
    # The browser that made the token sees the attempt as its own, and the token sees the browser's.
    assert [a["id"] for a in browser.get("/api/problems/add_one/submissions").json()] == [submission_id]
    mine = browser.post("/api/problems/add_one/submissions", json={"code": CORRECT}).json()["id"]
    wait_for_verdict(browser, mine)
    assert cli.get(f"/api/submissions/{mine}").json()["summary"]["tone"] == "passed"


def test_a_token_follows_its_submissions_events(server: Server, token: str) -> None:
    cli = holder(server, token)
    submission_id = submit(cli, CORRECT).json()["id"]
    events = read_events(cli, submission_id)
    assert events[-1][0] == "report" and events[-1][1]["summary"]["tone"] == "passed"
    assert sum(1 for kind, _ in events if kind == "check") == 3


def test_a_token_request_never_gets_a_cookie(server: Server, token: str) -> None:
    cli = holder(server, token)
    for response in (cli.get("/api/problems"), submit(cli, WRONG), cli.get("/api/catalogue")):
        assert "set-cookie" not in response.headers
    assert not cli.cookies


def test_with_a_token_another_cookie_in_the_request_is_ignored(server: Server, browser: TestClient,
                                                               token: str) -> None:  # fmt: skip
    other = server.learner()
    theirs = submit(other, WRONG).json()["id"]
    wait_for_verdict(other, theirs)
    # Their cookie and my token: the request is mine, and their attempt is not found.
    mixed = TestClient(server.app, headers=bearer(token), cookies=dict(other.cookies))
    assert mixed.get(f"/api/submissions/{theirs}").status_code == 404
    assert mixed.get("/api/problems/add_one/submissions").json() == []


def test_another_learners_submission_is_not_found_with_a_token(server: Server, token: str) -> None:
    other = server.learner()
    theirs = submit(other, WRONG).json()["id"]
    wait_for_verdict(other, theirs)
    cli = holder(server, token)
    for path in (f"/api/submissions/{theirs}", f"/api/submissions/{theirs}/events", f"/api/submissions/{theirs}/embed"):
        assert cli.get(path).status_code == 404, path
    assert cli.post(f"/api/submissions/{theirs}/stop").status_code == 404


def test_a_token_posts_without_origin_and_a_cross_site_cookie_cannot_borrow_it(server: Server, browser: TestClient,
                                                                                token: str) -> None:  # fmt: skip
    # A page on another site can make the browser send the learner's cookie, never an Authorization header it
    # knows no valid value for: the forged header is refused and the cookie is not used instead.
    forged = browser.post("/api/problems/add_one/submissions", json={"code": WRONG},
                          headers={"Origin": "https://evil.example", **bearer("plt_" + "A" * 43)})  # fmt: skip
    assert forged.status_code == 401
    assert browser.get("/api/problems/add_one/submissions").json() == []
    # The `paperlab` command sends no Origin at all.
    assert submit(holder(server, token), WRONG).status_code == 202


@pytest.mark.parametrize("headers", [
    pytest.param({"Origin": "https://elsewhere.example"}, id="another-origin"),
    pytest.param({"Sec-Fetch-Site": "cross-site"}, id="sec-fetch-site-cross-site"),
])  # fmt: skip
def test_a_request_with_a_token_is_no_cross_site_forgery(server: Server, token: str, headers: dict[str, str]) -> None:
    """The cross-site check guards what a browser adds by itself (its cookie); it never adds a token."""
    assert submit(holder(server, token), WRONG, headers=headers).status_code == 202


# ----------------------------------------------------------------------------------- refused, and saying why


def _revoke(server: Server, browser: TestClient, token: str) -> None:
    token_id = next(t["id"] for t in browser.get("/api/tokens").json())
    assert browser.delete(f"/api/tokens/{token_id}").status_code == 204


def _expire(server: Server, browser: TestClient, token: str) -> None:
    with server.app.state.paperlab.session_factory() as session:
        session.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        session.commit()


@pytest.mark.parametrize(("spoil", "presented", "says"), [
    pytest.param(_revoke, None, "was revoked on", id="revoked"),
    pytest.param(_expire, None, "expired on", id="expired"),
    pytest.param(None, "plt_" + "B" * 43, "is not known to this PaperLab site", id="unknown"),
    pytest.param(None, "hunter2", "is not a PaperLab API token", id="malformed"),
    pytest.param(None, "", "is not a PaperLab API token", id="empty"),
])  # fmt: skip
def test_a_token_that_cannot_be_used_is_401_saying_why(
    server: Server, browser: TestClient, token: str, spoil: Callable[..., None] | None, presented: str | None,
    says: str,
) -> None:
    if spoil is not None:
        spoil(server, browser, token)
    response = holder(server, token if presented is None else presented).get("/api/problems")
    assert response.status_code == 401
    assert says in response.json()["detail"] and "paperlab login" in response.json()["detail"]
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def test_a_token_revokes_itself(server: Server, token: str) -> None:
    cli = holder(server, token)
    assert cli.get("/api/tokens/current").json()["name"] == "laptop"
    assert cli.delete("/api/tokens/current").status_code == 204
    assert cli.get("/api/problems").status_code == 401


def test_a_browser_has_no_current_token(browser: TestClient) -> None:
    assert browser.get("/api/tokens/current").status_code == 404
    assert browser.delete("/api/tokens/current").status_code == 404


def test_a_learner_cannot_revoke_another_learners_token(server: Server, browser: TestClient, token: str) -> None:
    token_id = browser.get("/api/tokens").json()[0]["id"]
    assert server.learner().delete(f"/api/tokens/{token_id}").status_code == 404
    assert holder(server, token).get("/api/problems").status_code == 200


@pytest.mark.parametrize(("method", "path"), [
    pytest.param("POST", "/api/tokens", id="make-a-token"),
    pytest.param("GET", "/api/tokens", id="list-tokens"),
    pytest.param("DELETE", "/api/tokens/some-id", id="revoke-another-token"),
    pytest.param("POST", "/api/device-links", id="make-a-device-link"),
    pytest.param("GET", "/api/device-links", id="list-device-links"),
    pytest.param("GET", "/continue", id="the-learners-page"),
    pytest.param("POST", "/continue/tokens", id="the-pages-token-form"),
    pytest.param("GET", "/problems/add_one", id="a-problem-page"),
])  # fmt: skip
def test_a_token_cannot_make_credentials_or_open_pages(server: Server, token: str, method: str, path: str) -> None:
    """A leaked token must not become a browser session (a device link) or more tokens."""
    response = holder(server, token).request(method, path, json={})
    assert response.status_code == 403 and "solving API" in response.json()["detail"]


def test_every_instructor_route_refuses_a_token_even_beside_an_instructors_session(
    server: Server, browser: TestClient
) -> None:
    make_instructor(server.app)
    instructor = server.learner()
    assert sign_in(instructor).status_code == 303
    learner_token = make_token(browser)["token"]
    routes = guarded_routes(server)
    assert routes
    for method, path in routes:
        response = instructor.request(method, path, headers=bearer(learner_token), follow_redirects=False)
        assert response.status_code == 403, (method, path, response.status_code)
        assert "instructor routes" in response.json()["detail"]
    assert instructor.get("/api/instructor/problems/add_one/stats").status_code == 200  # the session alone works


# ---------------------------------------------------------------------------------------------- limits, logs


def test_a_token_and_the_browser_share_the_learners_rate_limit(make_server: Callable[..., Server]) -> None:
    server = make_server(rate_limit_per_minute=2)
    browser = server.learner()
    cli = holder(server, make_token(browser)["token"])
    wait_for_verdict(browser, submit(browser, WRONG).json()["id"])
    wait_for_verdict(cli, submit(cli, WRONG).json()["id"])
    refused = submit(cli, WRONG)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "at most 2 times a minute" in refused.json()["detail"]


def test_an_address_presenting_bad_tokens_is_refused_for_a_while(server: Server, token: str) -> None:
    guesser = from_address(server.app, "203.0.113.9")
    for _ in range(TOKEN_FAILURES_PER_ADDRESS):
        assert guesser.get("/api/problems", headers=bearer("plt_" + "C" * 43)).status_code == 401
    blocked = guesser.get("/api/problems", headers=bearer(token))  # even a good token, from that address
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
    elsewhere = from_address(server.app, "198.51.100.7")
    assert elsewhere.get("/api/problems", headers=bearer(token)).status_code == 200


def test_good_tokens_do_not_use_up_the_addresses_allowance(server: Server, token: str) -> None:
    cli = from_address(server.app, "203.0.113.10")
    for _ in range(TOKEN_FAILURES_PER_ADDRESS + 5):
        assert cli.get("/api/problems", headers=bearer(token)).status_code == 200


def test_tokens_never_reach_the_logs(server: Server, browser: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    created = make_token(browser)
    cli = holder(server, created["token"])
    wait_for_verdict(cli, submit(cli, WRONG).json()["id"])
    rejected = holder(server, created["token"][:-1] + "x")
    assert rejected.get("/api/problems").status_code == 401
    assert cli.delete("/api/tokens/current").status_code == 204
    assert holder(server, created["token"]).get("/api/problems").status_code == 401
    secrets = (created["token"], created["token"][:-1] + "x", created["token"][len(created["prefix"]):])
    assert caplog.records  # the app did log (grading, the server's requests): just never a token
    assert not any(secret in caplog.text for secret in secrets)


def test_last_use_is_recorded(server: Server, browser: TestClient, token: str) -> None:
    holder(server, token).get("/api/problems")
    assert browser.get("/api/tokens").json()[0]["last_used_at"] is not None


# ---------------------------------------------------------------------------------------- the learner's page


def test_the_learners_page_makes_a_token_shows_it_once_and_revokes_it(browser: TestClient) -> None:
    page = browser.get("/continue")
    assert 'id="api-tokens"' in page.text and 'action="/continue/tokens"' in page.text
    made = browser.post("/continue/tokens", data={"name": "lab machine", "expires_in_days": "7"})
    assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
    token = _input_value(made.text, "api-token-value")
    assert token.startswith(TOKEN_PREFIX) and "paperlab login http://testserver" in made.text
    listed = browser.get("/continue")
    assert token not in listed.text and token[: len(TOKEN_PREFIX) + 6] + "…" in listed.text
    assert "lab machine" in listed.text
    token_id = browser.get("/api/tokens").json()[0]["id"]
    revoked = browser.post(f"/continue/tokens/{token_id}/revoke", follow_redirects=False)
    assert revoked.status_code == 303 and revoked.headers["location"] == "/continue#api-tokens"
    assert browser.get("/api/tokens").json() == []


def test_the_pages_token_form_refuses_a_lifetime_it_does_not_offer(browser: TestClient) -> None:
    assert browser.post("/continue/tokens", data={"name": "x", "expires_in_days": "3650"}).status_code == 422


def _input_value(html: str, element_id: str) -> str:
    marker = f'id="{element_id}"'
    start = html.index(marker)
    value_at = html.index('value="', start) + len('value="')
    return html[value_at : html.index('"', value_at)]


def _parse(value: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(value.replace("Z", "+00:00"))
