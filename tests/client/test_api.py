"""How the client turns the server's answers into what a learner reads: each refusal its own error with the
server's words, a refusal that says when to come back waited out (and said), an answer that is not PaperLab's
API named as such. The answers are the server's own shapes (docs/web-contract.md), served by a stand-in
transport; the real server's answers are exercised in tests/services/test_editor_clients.py."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from paperlab.api import MAX_WAIT_S, Client
from paperlab.errors import Refused, ServerError, ServerUnreachable, TokenRefused, UnknownProblem
from paperlab.events import ReportEvent
from tests.client.test_schemas_and_events import CHECK, SUBMISSION
from tests.services.services_support import free_port

TOKEN = "plt_" + "k" * 43
Handler = Callable[[httpx.Request], httpx.Response]


class Site:
    """Answers in turn, and the requests it was sent."""

    def __init__(self, *answers: httpx.Response | Handler) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        return answer(request) if callable(answer) else answer


@pytest.fixture
def slept() -> list[float]:
    return []


def client_for(site: Site, slept: list[float], waits: list[tuple[int, str]] | None = None) -> Client:
    return Client("http://lab.example", TOKEN, transport=httpx.MockTransport(site), sleep=slept.append,
                  on_wait=lambda seconds, reason: (waits if waits is not None else []).append((seconds, reason)))


def detail(status: int, text: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"detail": text}, headers=headers)


def test_every_request_carries_the_token_and_no_cookie(slept: list[float]) -> None:
    site = Site(httpx.Response(200, json={"tracks": [], "others": []}))
    client_for(site, slept).catalogue()
    (request,) = site.requests
    assert request.headers["authorization"] == f"Bearer {TOKEN}" and "cookie" not in request.headers
    assert request.headers["user-agent"].startswith("paperlab/") and "origin" not in request.headers


def test_a_429_with_retry_after_is_waited_out_and_said(slept: list[float]) -> None:
    waits: list[tuple[int, str]] = []
    site = Site(detail(429, "Your previous run is still being graded; wait for its verdict, then run again.",
                       **{"Retry-After": "2"}),
                detail(503, "The grading queue is full.", **{"Retry-After": "7"}),
                httpx.Response(202, json={"id": "s1", "status": "queued"}))  # fmt: skip
    assert client_for(site, slept, waits).submit("p", "code") == "s1"
    assert slept == [2, 7]
    assert waits == [(2, "Your previous run is still being graded; wait for its verdict, then run again."),
                     (7, "The grading queue is full.")]  # fmt: skip
    assert [json.loads(r.content) for r in site.requests] == [{"code": "code"}] * 3


def test_waiting_stops_past_its_patience(slept: list[float]) -> None:
    refusals = [detail(429, "Busy.", **{"Retry-After": str(MAX_WAIT_S // 2)}) for _ in range(3)]
    with pytest.raises(ServerError, match="Still refused after waiting"):
        client_for(Site(*refusals), slept).submit("p", "code")
    assert sum(slept) <= MAX_WAIT_S


@pytest.mark.parametrize(("answer", "error", "says"), [
    pytest.param(detail(401, "This API token ('laptop') expired on 2026-01-01 00:00 UTC."), TokenRefused,
                 "refused your API token: This API token ('laptop') expired", id="401"),
    pytest.param(detail(404, "There is no problem 'nope'."), UnknownProblem, "There is no problem 'nope' on",
                 id="unknown-problem"),
    pytest.param(detail(413, "Your code is 300,001 bytes"), Refused, "Your code is 300,001 bytes", id="413"),
    pytest.param(detail(429, "No Retry-After: final."), Refused, "No Retry-After", id="429-without-retry-after"),
    pytest.param(detail(500, "The server hit an unexpected error"), ServerError, "could not do that", id="500"),
    pytest.param(httpx.Response(200, text="<html>a proxy's page</html>"), ServerError, "not JSON", id="not-json"),
    pytest.param(httpx.Response(200, json={"slug": "nope"}), ServerError, "lacks `title`", id="not-the-api"),
])  # fmt: skip
def test_a_refusal_becomes_the_error_a_learner_can_act_on(slept: list[float], answer: httpx.Response,
                                                          error: type[Exception], says: str) -> None:  # fmt: skip
    with pytest.raises(error, match=re.escape(says)):
        client_for(Site(answer), slept).problem("nope")


def test_a_server_that_is_not_there_is_named() -> None:
    address = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ServerUnreachable, match=re.escape(f"Cannot reach PaperLab at {address}")):
        Client(address, TOKEN).catalogue()


def sse(*messages: tuple[str, Any]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in messages)


def test_a_stream_cut_short_is_reopened_and_ends_with_the_report(slept: list[float]) -> None:
    check = ("check", {"check": CHECK, "done": 1, "total": 2})
    site = Site(httpx.Response(200, content=sse(("status", {"status": "running", "total": 2}), check)),
                httpx.Response(200, content=b"retry: 1000\n\n"),  # a server shutting down ends streams so
                httpx.Response(200, content=sse(check, ("report", SUBMISSION))))  # fmt: skip
    seen = list(client_for(site, slept).follow("s1"))
    assert isinstance(seen[-1], ReportEvent) and seen[-1].submission.id == "s1"
    assert len(site.requests) == 3 and all(r.url.path == "/api/submissions/s1/events" for r in site.requests)


def test_with_no_room_for_a_stream_the_client_polls_as_the_page_does(slept: list[float]) -> None:
    running = {**SUBMISSION, "status": "running", "report": None, "summary": None}
    site = Site(detail(429, "You have 4 live result streams open already", **{"Retry-After": "5"}),
                httpx.Response(200, json=running), httpx.Response(200, json=SUBMISSION))  # fmt: skip
    seen = list(client_for(site, slept).follow("s1"))
    assert len(seen) == 1 and isinstance(seen[0], ReportEvent) and seen[0].submission.finished
    assert [r.url.path for r in site.requests] == ["/api/submissions/s1/events", "/api/submissions/s1",
                                                   "/api/submissions/s1"]  # fmt: skip
    assert slept == [1.0]


def test_stopping_a_run_already_graded_is_no_error(slept: list[float]) -> None:
    client_for(Site(detail(409, "Already graded: there is nothing to stop.")), slept).stop("s1")


