"""The PaperLab server's JSON API as the client uses it (the contract is the server's docs/web-contract.md), with
an API token. Every answer is checked (paperlab.schemas); every failure becomes one of paperlab.errors with a
message a learner can act on. A refusal that says when to come back (429 or 503 with Retry-After: a run still
being graded, a rate limit, a full queue) is waited out, and `on_wait` is told first, so that the command can
say that it is waiting and why."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, TypeVar

import httpx

from paperlab import __version__
from paperlab.errors import PaperLabError, Refused, ServerError, ServerUnreachable, TokenRefused, UnknownProblem
from paperlab.events import Event, ReportEvent, events
from paperlab.schemas import Catalogue, Problem, ScratchResult, Submission, TokenInfo, parse

T = TypeVar("T")
WaitNotice = Callable[[int, str], None]

MAX_WAIT_S = 600  # in all, for one request: beyond it the site is not coming back soon, and we say so
STREAM_READ_TIMEOUT_S = 90.0  # the server sends a heartbeat every 15 s on an idle stream
STREAM_RECONNECTS = 5  # a restarting server ends streams early; each reconnect replays the checks already done
POLL_INTERVAL_S = 1.0  # when the site has no room for one more stream, the page polls as often


class Client:
    def __init__(self, url: str, token: str, *, on_wait: WaitNotice | None = None,
                 sleep: Callable[[float], None] = time.sleep, transport: httpx.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        self._on_wait = on_wait or (lambda seconds, reason: None)
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}", "User-Agent": f"paperlab/{__version__}",
                     "Accept": "application/json"},
            timeout=httpx.Timeout(30.0, read=120.0),  # a "Try it" run answers when the script has finished
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------------ reads

    def current_token(self) -> TokenInfo:
        return parse(TokenInfo, self._json("GET", "/api/tokens/current"))

    def catalogue(self) -> Catalogue:
        return parse(Catalogue, self._json("GET", "/api/catalogue"))

    def problem(self, slug: str) -> Problem:
        return parse(Problem, self._json("GET", f"/api/problems/{slug}", problem=slug))

    def submission(self, submission_id: str) -> Submission:
        return parse(Submission, self._json("GET", f"/api/submissions/{submission_id}"))

    def embed(self, submission_id: str) -> str:
        body = self._json("GET", f"/api/submissions/{submission_id}/embed")
        if not isinstance(body, dict) or not isinstance(body.get("html"), str):
            raise ServerError("The server's answer lacks the verdict's HTML (`html`).")
        return str(body["html"])

    # ------------------------------------------------------------------------------------------------ writes

    def submit(self, slug: str, code: str) -> str:
        """Queue `code` for grading; the submission's id."""
        body = self._json("POST", f"/api/problems/{slug}/submissions", json={"code": code}, problem=slug)
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            raise ServerError("The server accepted the code but sent no submission id.")
        return str(body["id"])

    def stop(self, submission_id: str) -> None:
        """The page's Stop button. A submission already graded has nothing to stop (409): that is fine."""
        try:
            self._json("POST", f"/api/submissions/{submission_id}/stop")
        except Refused:
            pass

    def run_script(self, slug: str, code: str, script: str) -> ScratchResult:
        body = self._json("POST", f"/api/problems/{slug}/runs", json={"code": code, "script": script}, problem=slug)
        return parse(ScratchResult, body)

    def revoke_current_token(self) -> None:
        self._json("DELETE", "/api/tokens/current")

    # ------------------------------------------------------------------------------------------------ events

    def follow(self, submission_id: str) -> Iterator[Event]:
        """The submission's events until its report, as the page follows them: over the event stream,
        reconnecting if the server ends it early (it replays the finished checks), and by polling when the site
        has no room for another stream. The last event is always a ReportEvent."""
        path = f"/api/submissions/{submission_id}/events"
        for _ in range(STREAM_RECONNECTS + 1):
            response = self._open_stream(path)
            if response is None:
                break  # no room for one more stream: poll instead
            try:
                for event in events(response.iter_lines()):
                    yield event
                    if isinstance(event, ReportEvent):
                        return
            except httpx.TransportError:
                pass  # cut off mid-stream (a server restarting): reconnect, and the checks are replayed
            finally:
                response.close()
            self._sleep(1.0)
        yield ReportEvent(self._poll(submission_id))

    def _open_stream(self, path: str) -> httpx.Response | None:
        """The event stream's response, open; None when this learner or address has its streams open already."""
        waited = 0
        timeout = httpx.Timeout(30.0, read=STREAM_READ_TIMEOUT_S)
        while True:
            response = self._transport_errors(partial(self._send_streaming, path, timeout))
            if response.status_code == 200:
                return response
            response.read()
            response.close()
            if response.status_code == 429:
                return None
            wait = self._retry_after(response, waited)  # a server restarting says when to come back
            if wait is None:
                check(response, url=self.url, problem=None)
                raise ServerError(f"{self.url} answered the event stream with HTTP {response.status_code}.")
            waited += wait

    def _send_streaming(self, path: str, timeout: httpx.Timeout) -> httpx.Response:
        return self._http.send(self._http.build_request("GET", path, timeout=timeout), stream=True)

    def _poll(self, submission_id: str) -> Submission:
        while True:
            submission = self.submission(submission_id)
            if submission.finished:
                return submission
            self._sleep(POLL_INTERVAL_S)

    # ------------------------------------------------------------------------------------------------ plumbing

    def _json(self, method: str, path: str, *, json: Any = None, problem: str | None = None) -> Any:
        response = self._send(method, path, json=json, problem=problem)
        if response.status_code == 204:
            return None
        try:
            return response.json()
        except ValueError:
            raise ServerError(f"{self.url} answered {method} {path} with something that is not JSON; is it a "
                              "PaperLab site?") from None

    def _send(self, method: str, path: str, *, json: Any = None, problem: str | None = None) -> httpx.Response:
        waited = 0
        while True:
            response = self._transport_errors(lambda: self._http.request(method, path, json=json))
            wait = self._retry_after(response, waited)
            if wait is None:
                check(response, url=self.url, problem=problem)
                return response
            waited += wait

    def _retry_after(self, response: httpx.Response, waited: int) -> int | None:
        """Seconds to wait before asking again (after saying so), or None when the answer is final."""
        if response.status_code not in (429, 503):
            return None
        header = response.headers.get("retry-after", "")
        if not header.isdigit():
            return None
        wait = max(1, int(header))
        if waited + wait > MAX_WAIT_S:
            raise ServerError(f"{detail_of(response)} (Still refused after waiting {waited} s; try again later.)")
        self._on_wait(wait, detail_of(response))
        self._sleep(wait)
        return wait

    def _transport_errors(self, send: Callable[[], T]) -> T:
        try:
            return send()
        except httpx.TimeoutException:
            raise ServerUnreachable(f"PaperLab at {self.url} did not answer in time; try again in a moment.") from None
        except httpx.TransportError as exc:
            raise ServerUnreachable(
                f"Cannot reach PaperLab at {self.url} ({exc or type(exc).__name__}). Is the server running, and is "
                "that its address? `paperlab login URL` changes it."
            ) from None


def detail_of(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    detail = body.get("detail") if isinstance(body, dict) else None
    return detail if isinstance(detail, str) else f"HTTP {response.status_code}"


def check(response: httpx.Response, *, url: str, problem: str | None) -> None:
    """Raise the error a refusal means for the learner; nothing for a success."""
    status = response.status_code
    if status < 400:
        return
    detail = detail_of(response)
    error: PaperLabError
    if status == 401:
        error = TokenRefused(f"{url} refused your API token: {detail}")
    elif status == 404 and problem is not None and response.request.url.path.startswith(f"/api/problems/{problem}"):
        error = UnknownProblem(f"There is no problem '{problem}' on {url}; `paperlab list` shows the problems.")
    elif status >= 500:
        error = ServerError(f"{url} could not do that: {detail}")
    else:
        error = Refused(detail)
    raise error
