"""Continue on another device: a signed link, used once in another browser after a confirmation, makes that
browser the same learner (same attempts, same solved problems); links expire and can be revoked."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from app.models import DeviceLink, utcnow
from tests.app.app_support import CORRECT, TestClient, run
from tests.app.conftest import Server

LINKS = "/api/device-links"


def make_link(client: TestClient) -> dict[str, Any]:
    response = client.post(LINKS)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def path_of(link: dict[str, Any]) -> str:
    match = re.match(r"https?://[^/]+(/continue/[^/]+)$", link["url"])
    assert match, link["url"]
    return match.group(1)


def test_a_link_carries_the_learner_to_another_browser(server: Server) -> None:
    owner = server.client
    assert run(owner, CORRECT)["report"]["solved"]
    link = make_link(owner)
    other = server.learner()
    assert other.get("/problems/add_one/notes").status_code == 403

    confirm = other.get(path_of(link))
    assert confirm.status_code == 200 and "Continue here" in confirm.text
    assert other.get("/problems/add_one/notes").status_code == 403, "opening the link changes nothing yet"
    used = other.post(path_of(link), follow_redirects=False)
    assert used.status_code == 303 and used.headers["location"].startswith("/")
    assert "paperlab_learner=" in used.headers["set-cookie"]
    assert other.get("/problems/add_one/notes").status_code == 200
    assert other.get("/api/problems/add_one/submissions").json() == owner.get(
        "/api/problems/add_one/submissions"
    ).json()


def test_a_link_works_once(server: Server) -> None:
    link = make_link(server.client)
    assert server.learner().post(path_of(link), follow_redirects=False).status_code == 303
    again = server.learner()
    assert again.get(path_of(link)).status_code == 410
    assert again.post(path_of(link), follow_redirects=False).status_code == 410
    assert server.client.get(LINKS).json() == [], "a used link is no longer listed"


def test_a_revoked_link_is_refused(server: Server) -> None:
    link = make_link(server.client)
    assert server.client.delete(f"{LINKS}/{link['id']}").status_code == 204
    assert server.client.get(LINKS).json() == []
    assert server.learner().post(path_of(link), follow_redirects=False).status_code == 410


def test_only_the_owner_revokes(server: Server) -> None:
    link = make_link(server.client)
    assert server.learner().delete(f"{LINKS}/{link['id']}").status_code == 404
    assert [item["id"] for item in server.client.get(LINKS).json()] == [link["id"]]


def test_an_expired_link_is_refused(server: Server) -> None:
    link = make_link(server.client)
    state = server.app.state.paperlab
    with state.session_factory() as session:
        session.execute(update(DeviceLink).values(expires_at=utcnow() - timedelta(seconds=1)))
        session.commit()
    assert server.learner().get(path_of(link)).status_code == 410
    assert server.client.get(LINKS).json() == []


@pytest.mark.parametrize(
    "token",
    [pytest.param("not-a-token", id="garbage"), pytest.param("ImZha2UtaWQi.AAAAAA.forged", id="forged")],
)
def test_a_forged_or_garbled_link_is_404(server: Server, token: str) -> None:
    other = server.learner()
    assert other.get(f"/continue/{token}").status_code == 404
    assert other.post(f"/continue/{token}", follow_redirects=False).status_code == 404


def test_the_link_holds_no_learner_id_and_links_are_capped(server: Server) -> None:
    client = server.client
    links = [make_link(client) for _ in range(5)]
    cookie = client.cookies["paperlab_learner"]
    assert all(cookie not in link["url"] for link in links)
    assert client.post(LINKS).status_code == 429


def test_the_page_makes_a_link_without_javascript(client: TestClient) -> None:
    page = client.get("/continue")
    assert page.status_code == 200 and "Make a link" in page.text
    redirect = client.post("/continue/links", follow_redirects=False)
    assert (redirect.status_code, redirect.headers["location"]) == (303, "/continue")  # a clean address bar
    made = client.get("/continue")
    assert re.search(r'id="device-link"[^>]*value="http://testserver/continue/[^"]+"', made.text)
    assert "<svg" in made.text and "device-links__qr-code" in made.text  # the QR code, drawn on the server
    assert "Revoke" in made.text
    again = client.get("/continue")  # shown once: a reload lists the link among the unused ones, no QR code
    assert 'id="device-link"' not in again.text and "Revoke" in again.text
