"""A problem made with `python -m grader new` shows up in the app and can be solved, with no code change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.scaffold import create_problem
from tests.app.app_support import copy_problems, submit, wait_for_verdict
from tests.app.conftest import Server


def test_a_scaffolded_problem_is_listed_solvable_and_unlocks_its_notes(
    make_server: Callable[..., Server], tmp_path: Path
) -> None:
    problems = copy_problems(tmp_path / "problems")
    folder = create_problem("row_norms", problems)
    server = make_server(problems_dir=problems)
    client = server.client

    listed = {problem["slug"] for problem in client.get("/api/problems").json()}
    assert listed == {"add_one", "row_norms"}
    assert client.get("/problems/row_norms").status_code == 200
    assert client.get("/problems/row_norms/notes").status_code == 403

    wrong = submit(client, (folder / "starter.py").read_text(), slug="row_norms")
    assert wait_for_verdict(client, wrong.json()["id"])["report"]["solved"] is False

    right = submit(client, (folder / "reference.py").read_text(), slug="row_norms")
    verdict = wait_for_verdict(client, right.json()["id"])
    assert verdict["report"]["solved"] is True, verdict["report"]
    assert client.get("/problems/row_norms/notes").status_code == 200
