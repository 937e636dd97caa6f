"""GET /api/problems/{slug}/hints and POST .../hints/{index}/unlock: hints open after failed attempts or on
request (recorded), in order, and the server never sends the text of a locked hint."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.app_support import CORRECT, WRONG, TestClient, run

HINTS = "/api/problems/add_one/hints"
CONFIRMED = {"confirm": True}


def hints(client: TestClient) -> list[dict[str, Any]]:
    response = client.get(HINTS)
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


def test_a_new_learner_sees_every_hint_locked_and_no_text(client: TestClient) -> None:
    response = client.get(HINTS)
    assert response.json() == [
        {"index": 0, "unlocked": False, "text": None, "unlocks_after": 1, "unlocked_by": None},
        {"index": 1, "unlocked": False, "text": None, "unlocks_after": 2, "unlocked_by": None},
    ]
    assert "HINT-" not in response.text


@pytest.mark.parametrize(("failed", "open_count"), [(1, 1), (2, 2)])
def test_failed_attempts_unlock_hints_in_order(client: TestClient, failed: int, open_count: int) -> None:
    for _ in range(failed):
        assert not run(client, WRONG)["report"]["solved"]
    body = hints(client)
    assert [h["unlocked"] for h in body] == [i < open_count for i in range(2)]
    assert [h["unlocked_by"] for h in body[:open_count]] == ["attempts"] * open_count
    assert body[0]["text"].startswith("HINT-ONE")
    assert all(h["text"] is None for h in body[open_count:])


def test_a_solving_attempt_does_not_count_as_failed(client: TestClient) -> None:
    assert run(client, CORRECT)["report"]["solved"]
    assert [h["unlocked"] for h in hints(client)] == [False, False]


def test_a_hint_opens_on_request_and_stays_open(client: TestClient) -> None:
    response = client.post(f"{HINTS}/0/unlock", json=CONFIRMED)
    assert response.status_code == 200, response.text
    assert response.json()[0] == {
        "index": 0, "unlocked": True, "unlocked_by": "request", "unlocks_after": 1,
        "text": "HINT-ONE: one is added to every element; a tensor operation does that for all of them at once.",
    }  # fmt: skip
    assert response.json()[1]["text"] is None
    assert hints(client)[0]["unlocked_by"] == "request"
    # Asking again changes nothing.
    assert client.post(f"{HINTS}/0/unlock", json=CONFIRMED).json() == hints(client)


def test_a_request_is_per_learner(server: Any) -> None:
    assert server.client.post(f"{HINTS}/0/unlock", json=CONFIRMED).status_code == 200
    assert [h["unlocked"] for h in hints(server.learner())] == [False, False]


def test_hints_open_in_order_on_request(client: TestClient) -> None:
    response = client.post(f"{HINTS}/1/unlock", json=CONFIRMED)
    assert response.status_code == 409
    assert "Hint 1 is still locked" in response.json()["detail"]
    assert "HINT-TWO" not in response.text
    assert client.post(f"{HINTS}/0/unlock", json=CONFIRMED).status_code == 200
    assert client.post(f"{HINTS}/1/unlock", json=CONFIRMED).json()[1]["unlocked"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        pytest.param(f"{HINTS}/0/unlock", {}, 422, id="not-confirmed"),
        pytest.param(f"{HINTS}/0/unlock", {"confirm": False}, 422, id="confirm-false"),
        pytest.param(f"{HINTS}/2/unlock", CONFIRMED, 404, id="no-such-hint"),
        pytest.param(f"{HINTS}/-1/unlock", CONFIRMED, 404, id="negative-index"),
        pytest.param("/api/problems/nope/hints/0/unlock", CONFIRMED, 404, id="no-such-problem"),
    ],
)
def test_unlock_refusals(client: TestClient, path: str, body: dict[str, Any], status: int) -> None:
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert "HINT-" not in response.text
    assert [h["unlocked"] for h in hints(client)] == [False, False]


def test_the_problem_page_shows_only_unlocked_hints(client: TestClient) -> None:
    page = client.get("/problems/add_one")
    assert 'id="hints"' in page.text and "HINT-" not in page.text
    assert "Show hint 1 now" in page.text and "Show hint 2 now" not in page.text
    client.post(f"{HINTS}/0/unlock", json=CONFIRMED)
    page = client.get("/problems/add_one")
    assert "HINT-ONE" in page.text and "HINT-TWO" not in page.text
    assert "Show hint 2 now" in page.text
