"""The solution policy: GET /api/problems/{slug}/solution is 403 until the learner solved the problem or gave
up (POST .../solution/reveal, allowed after 3 failed attempts, recorded); a later solve is "after reveal"."""

from __future__ import annotations

from typing import Any

import pytest

from app.solutions import REVEAL_AFTER_FAILED, common_mistakes
from tests.app.app_support import CORRECT, NOTES_SENTINEL, WRONG, TestClient, run

SOLUTION = "/api/problems/add_one/solution"
REVEAL = f"{SOLUTION}/reveal"
REFERENCE_LINE = 'raise TypeError(f"x must be a torch.Tensor'


def fail(client: TestClient, times: int) -> None:
    for _ in range(times):
        assert not run(client, WRONG)["report"]["solved"]


def test_the_solution_is_locked_for_a_new_learner(client: TestClient) -> None:
    response = client.get(SOLUTION)
    assert response.status_code == 403
    assert "3 failed attempts" in response.json()["detail"]
    assert REFERENCE_LINE not in response.text


def test_solving_opens_the_solution_with_the_common_mistakes(client: TestClient) -> None:
    assert run(client, CORRECT)["report"]["solved"]
    response = client.get(SOLUTION)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["access"] == "solved" and not body["solved_after_reveal"] and body["revealed_at"] is None
    assert REFERENCE_LINE in body["code"]
    assert '<div class="highlight">' in body["code_html"]
    assert "MISTAKES-SENTINEL" in body["common_mistakes_html"]
    assert "AFTER-MISTAKES-SENTINEL" not in body["common_mistakes_html"]
    assert NOTES_SENTINEL not in body["common_mistakes_html"]


@pytest.mark.parametrize("failed", range(REVEAL_AFTER_FAILED))
def test_giving_up_is_refused_before_three_failed_attempts(client: TestClient, failed: int) -> None:
    fail(client, failed)
    response = client.post(REVEAL)
    assert response.status_code == 403
    assert f"you have {failed}" in response.json()["detail"]
    assert client.get(SOLUTION).status_code == 403
    assert "gave up" not in client.get("/problems/add_one/history").text


def test_giving_up_after_three_failures_is_recorded_and_marks_a_later_solve(client: TestClient) -> None:
    fail(client, REVEAL_AFTER_FAILED)
    revealed = client.post(REVEAL)
    assert revealed.status_code == 200, revealed.text
    body = revealed.json()
    assert body["access"] == "revealed" and body["revealed_at"] and not body["solved_after_reveal"]
    assert REFERENCE_LINE in body["code"]
    assert client.get(SOLUTION).json() == body
    assert client.post(REVEAL).json()["revealed_at"] == body["revealed_at"], "recorded once"
    history = client.get("/problems/add_one/history").text
    assert "You gave up after 3 failed attempts" in history

    assert run(client, CORRECT)["report"]["solved"]
    after = client.get(SOLUTION).json()
    assert after["solved_after_reveal"] and after["access"] == "revealed"
    assert "Solved after reveal" in client.get("/problems/add_one/history").text
    # It still counts: the notes open.
    assert client.get("/problems/add_one/notes").status_code == 200


def test_a_learner_who_solved_needs_no_reveal(client: TestClient) -> None:
    assert run(client, CORRECT)["report"]["solved"]
    body = client.post(REVEAL).json()
    assert body["access"] == "solved" and body["revealed_at"] is None


def test_a_reveal_belongs_to_one_learner(server: Any) -> None:
    fail(server.client, REVEAL_AFTER_FAILED)
    assert server.client.post(REVEAL).status_code == 200
    assert server.learner().get(SOLUTION).status_code == 403


def test_the_solution_page_offers_giving_up_only_when_allowed(client: TestClient) -> None:
    page = client.get("/problems/add_one/solution")
    assert page.status_code == 403
    assert "Give up and show the solution" not in page.text and REFERENCE_LINE not in page.text
    fail(client, REVEAL_AFTER_FAILED)
    assert "Give up and show the solution" in client.get("/problems/add_one/solution").text
    given_up = client.post("/problems/add_one/solution/reveal", follow_redirects=False)
    assert given_up.status_code == 303 and given_up.headers["location"] == "/problems/add_one/solution"
    page = client.get("/problems/add_one/solution")
    assert page.status_code == 200
    assert "x must be a torch.Tensor" in page.text and 'class="highlight"' in page.text


@pytest.mark.parametrize(
    ("notes", "expected"),
    [
        pytest.param("# T\n\n## Why\n\ntext\n", "", id="no-section"),
        pytest.param("## Mistakes the checks look for\n\n- a\n", "## Mistakes the checks look for\n\n- a", id="last"),
        pytest.param("## The mistakes people make\n\nb\n\n## Next\n\nc\n", "## The mistakes people make\n\nb",
                     id="middle"),
    ],
)  # fmt: skip
def test_common_mistakes_is_the_notes_mistakes_section(notes: str, expected: str) -> None:
    assert common_mistakes(notes) == expected
