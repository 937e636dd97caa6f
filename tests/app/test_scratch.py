"""POST /api/problems/{slug}/runs ("Try it"): the learner's script runs after their functions in the sandbox,
under the problem's limits; it answers with what was printed and where it raised, records no attempt, and
shares the rate limit with submissions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from grader.scratch import combine, locate
from tests.app.app_support import CORRECT, TestClient, submit

RUNS = "/api/problems/add_one/runs"


def try_it(client: TestClient, script: str, code: str = CORRECT) -> dict[str, Any]:
    response = client.post(RUNS, json={"code": code, "script": script})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_script_prints_a_tensor_from_the_learners_function(client: TestClient) -> None:
    body = try_it(client, "x = torch.tensor([1.0, 2.0])\nprint(add_one(x))\n")
    assert body["stdout"] == "tensor([2., 3.])\n"
    assert body["stderr"] == "" and body["error"] is None
    assert body["duration_ms"] > 0


def test_an_exception_in_the_script_names_the_scripts_line(client: TestClient) -> None:
    body = try_it(client, "print('before')\n\nprint(add_one(undefined_name))\n")
    assert body["stdout"] == "before\n"
    error = body["error"]
    assert error["kind"] == "exception" and error["type"] == "NameError"
    assert (error["where"], error["line"]) == ("script", 3)
    assert "your script, line 3" in body["stderr"]


def test_an_exception_in_the_functions_names_the_codes_line(client: TestClient) -> None:
    code = "import torch\n\n\ndef add_one(x):\n    raise ValueError('not yet')\n"
    body = try_it(client, "add_one(torch.zeros(1))\n", code=code)
    error = body["error"]
    assert (error["type"], error["message"], error["where"], error["line"]) == ("ValueError", "not yet", "code", 5)
    assert [(f["where"], f["line"]) for f in error["traceback"]] == [("script", 1), ("code", 5)]


def test_a_script_that_runs_too_long_hits_the_problems_limit(client: TestClient) -> None:
    body = try_it(client, "while True:\n    pass\n")
    assert body["error"]["kind"] == "limit"
    assert "time limit" in body["error"]["message"]


def test_a_scratch_run_records_no_attempt(client: TestClient) -> None:
    try_it(client, "print(add_one(torch.ones(1)))\n")
    assert client.get("/api/problems/add_one/submissions").json() == []
    assert client.get("/api/problems/add_one/hints").json()[0]["unlocked"] is False


def test_scratch_runs_count_against_the_learners_rate_limit(make_server: Callable[..., Any]) -> None:
    client = make_server(rate_limit_per_minute=2).client
    try_it(client, "print(1)\n")
    try_it(client, "print(2)\n")
    refused = client.post(RUNS, json={"code": CORRECT, "script": "print(3)\n"})
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "tests and scripts together" in refused.json()["detail"]


def test_submissions_count_against_the_scratch_runs_of_the_minute(make_server: Callable[..., Any]) -> None:
    client = make_server(rate_limit_per_minute=1).client
    assert submit(client, CORRECT).status_code == 202
    assert client.post(RUNS, json={"code": CORRECT, "script": "print(1)\n"}).status_code == 429


@pytest.mark.parametrize("scratch_first", [True, False], ids=["scratch-then-submit", "submit-then-scratch"])
def test_scratch_runs_and_submissions_share_the_address_limit(
    make_server: Callable[..., Any], scratch_first: bool
) -> None:
    server = make_server(address_rate_limit_per_minute=1)
    first, second = server.client, server.learner()  # two learners behind one address
    script = {"code": CORRECT, "script": "print(1)\n"}
    if scratch_first:
        try_it(first, "print(1)\n")
        assert submit(second, CORRECT).status_code == 429
    else:
        assert submit(first, CORRECT).status_code == 202
        assert second.post(RUNS, json=script).status_code == 429


@pytest.mark.parametrize(
    ("body", "status"),
    [
        pytest.param({"code": CORRECT}, 422, id="no-script"),
        pytest.param({"script": "print(1)"}, 422, id="no-code"),
        pytest.param({"code": "x" * 200_001, "script": ""}, 413, id="too-large"),
    ],
)
def test_malformed_or_oversized_runs_are_refused(client: TestClient, body: dict[str, Any], status: int) -> None:
    assert client.post(RUNS, json=body).status_code == status


def test_an_unknown_problem_is_404(client: TestClient) -> None:
    assert client.post("/api/problems/nope/runs", json={"code": "", "script": ""}).status_code == 404


def test_the_script_starts_on_the_line_after_the_separator() -> None:
    module, start = combine("a = 1\n\n\n", "b = 2\n")
    assert module.splitlines()[start - 1] == "b = 2"
    assert locate(start, start) == ("script", 1)
    assert locate(start - 1, start) == ("code", start - 1)


def test_scratch_runs_of_the_minute_count_against_submissions(make_server: Callable[..., Any]) -> None:
    client = make_server(rate_limit_per_minute=2).client
    try_it(client, "print(1)\n")
    try_it(client, "print(2)\n")
    refused = submit(client, CORRECT)
    assert refused.status_code == 429
    assert "tests and scripts together" in refused.json()["detail"]
