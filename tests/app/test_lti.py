"""LTI 1.3 end to end, over HTTP, against a real platform implementation (`lti1p3platform`, tests/app/
lti_platform.py) acting as the LMS: an instructor's deep-linking launch picks an assignment, a learner launches
the link the LMS made of it, solves the problem, and the score arrives in the platform's gradebook; the roster
comes over by Names and Role Provisioning; the tool's keys rotate; and every bad launch is refused with a reason.

Both servers run in this process (uvicorn threads), PaperLab on SQLite with the session's warm sandboxes."""

from __future__ import annotations

import html
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from app.grading.inprocess import InProcessBackend
from app.lti import keys, platforms
from app.lti.models import LtiScore, LtiState
from app.main import create_app
from app.settings import Settings
from app.state import BackendContext
from grader.pool import WorkerPool
from tests.app.app_support import CORRECT, WRONG
from tests.app.conftest import SharedPool
from tests.app.course_support import local, two_problems
from tests.app.lti_platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    LEARNER_ROLE,
    TEACHER_ROLE,
    LmsUser,
    Platform,
    ThreadServer,
    new_key_pair,
    platform_app,
)

pytestmark = pytest.mark.slow

FORM = re.compile(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', re.S)
INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
REFRESH = re.compile(r'url=([^"]+)"')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Lms:
    platform: Platform
    tool: str
    app: Any
    clients: list[httpx.Client]

    def session(self) -> Any:
        return self.app.state.paperlab.session_factory()


USERS = {
    "teacher": LmsUser("lms-teacher-1", "Ada Lovelace", "ada@uni.edu", [TEACHER_ROLE]),
    "grace": LmsUser("lms-student-7", "Grace Hopper", "grace@uni.edu", [LEARNER_ROLE], student_id="s-7"),
    "alan": LmsUser("lms-student-8", "Alan Turing", "alan@uni.edu", [LEARNER_ROLE], student_id="s-8"),
}


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory, worker_pool: WorkerPool) -> Iterator[Lms]:
    root = tmp_path_factory.mktemp("lti")
    tool_port, platform_port = free_port(), free_port()
    tool, platform_url = f"http://127.0.0.1:{tool_port}", f"http://127.0.0.1:{platform_port}"
    private, public = new_key_pair()
    platform = Platform(url=platform_url, tool_url=tool, private_pem=private, public_pem=public, users=USERS)
    settings = Settings(_env_file=None, database_url=f"sqlite:///{root / 'paperlab.db'}",
                        var_dir=root / "var", problems_dir=two_problems(root / "problems"), grading_concurrency=2,
                        secret_key="lti-test-secret-key-0123456789abcdef", celery_broker_url=None)

    def backend(context: BackendContext) -> InProcessBackend:
        return InProcessBackend(session_factory=context.session_factory, problems=context.catalog, bus=context.bus,
                                concurrency=2, queue_limit=20, pool_factory=lambda: SharedPool(worker_pool))

    app = create_app(settings, backend_factory=backend)
    with ThreadServer(platform_app(platform), platform_port), ThreadServer(app, tool_port):
        with app.state.paperlab.session_factory() as session:
            platforms.add_platform(session=session, values=platforms.PlatformIn(
                title="Test LMS", issuer=platform.issuer, client_id=CLIENT_ID, auth_login_url=f"{platform_url}/auth",
                auth_token_url=f"{platform_url}/token", key_set_url=f"{platform_url}/jwks",
                deployments=[DEPLOYMENT_ID]))
        found = Lms(platform=platform, tool=tool, app=app, clients=[])
        yield found
        for client in found.clients:
            client.close()


def browser(lms: Lms) -> httpx.Client:
    """A browser of its own (its own cookies), closed with the module's servers."""
    client = httpx.Client(timeout=30)
    lms.clients.append(client)
    return client


def launch_form(client: httpx.Client, lms: Lms, user: str, *, kind: str = "resource", link: str = ""
                ) -> tuple[str, dict[str, str]]:
    """Click in the LMS: the platform's login initiation, PaperLab's login, the platform's authorization; the
    answer is the auto-posting form a browser would submit to PaperLab."""
    page = client.get(f"{lms.platform.url}/start", params={"user": user, "kind": kind, "link": link},
                      follow_redirects=True)
    assert page.status_code == 200, page.text
    match = FORM.search(page.text)
    assert match, page.text
    return html.unescape(match.group(1)), {k: html.unescape(v) for k, v in INPUT.findall(match.group(2))}


def post_launch(client: httpx.Client, lms: Lms, action: str, fields: dict[str, str]) -> httpx.Response:
    # As a browser sends it: a cross-site form POST from the LMS's page.
    return client.post(action, data=fields, headers={"Origin": lms.platform.url, "Sec-Fetch-Site": "cross-site"})


def launch(client: httpx.Client, lms: Lms, user: str, **kwargs: str) -> httpx.Response:
    """The whole launch, then the page PaperLab moves the browser on to."""
    action, fields = launch_form(client, lms, user, **kwargs)
    landed = post_launch(client, lms, action, fields)
    assert landed.status_code == 200, landed.text
    location = html.unescape(REFRESH.search(landed.text).group(1))  # type: ignore[union-attr]
    return client.get(lms.tool + location, follow_redirects=True)


def course_id_of(page: httpx.Response) -> str:
    match = re.search(r"/instructor/courses/([0-9a-f-]{36})", str(page.url) + page.text)
    assert match, page.text[:2000]
    return match.group(1)


def form_post(client: httpx.Client, url: str, page_text: str, **fields: Any) -> httpx.Response:
    token = re.search(r'name="csrf_token" value="([^"]+)"', page_text)
    assert token, page_text[:2000]
    return client.post(url, data={"csrf_token": token.group(1), **fields}, follow_redirects=True)


@pytest.fixture(scope="module")
def course(lms: Lms) -> dict[str, str]:
    """The instructor opens the content picker from the LMS (which makes the course), makes an assignment in
    PaperLab, opens the picker again, picks the assignment; the LMS makes a link of it with a line item."""
    teacher = browser(lms)
    picker = launch(teacher, lms, "teacher", kind="deep_link")
    assert picker.status_code == 200 and "Add PaperLab content" in picker.text
    course_id = course_id_of(picker)
    now = datetime.now(UTC)
    new = teacher.get(f"{lms.tool}/instructor/courses/{course_id}/assignments/new")
    made = form_post(teacher, f"{lms.tool}/instructor/courses/{course_id}/assignments", new.text, title="Week 1",
                     opens_at=local(now - timedelta(days=1)), due_at=local(now + timedelta(days=6)),
                     late_policy="penalty", penalty_percent="10", floor_percent="50", order="add_one")
    assert made.status_code == 200, made.text
    assignment_id = str(made.url).rstrip("/").split("/")[-1]
    picker = launch(teacher, lms, "teacher", kind="deep_link")
    returned = form_post(teacher, str(picker.url), picker.text, pick=f"assignment:{assignment_id}")
    match = FORM.search(returned.text.replace(' data-autosubmit id="deep-link-return"', ""))
    assert match and match.group(1) == f"{lms.platform.url}/deep-link-return", returned.text
    csp = returned.headers["content-security-policy"]
    assert f"form-action {lms.platform.url}" in csp, "this page may post to the LMS, and only there"
    answer = teacher.post(match.group(1), data=dict(INPUT.findall(match.group(2))))
    assert answer.status_code == 200 and "Received 1 items" in answer.text, answer.text
    item = lms.platform.book.deep_link_items[-1]
    lineitem = f"{lms.platform.url}/lineitems/1"
    lms.platform.book.lineitems["1"] = {"id": lineitem, **item["lineItem"], "resourceLinkId": "link-week-1"}
    lms.platform.book.links["link-week-1"] = {"title": item["title"], "custom": item["custom"], "lineitem": lineitem}
    return {"course": course_id, "assignment": assignment_id, "item": item, "teacher": teacher}  # type: ignore[dict-item]


def test_deep_linking_answers_a_signed_item_the_platform_accepts(lms: Lms, course: dict[str, Any]) -> None:
    item = course["item"]
    assert item["type"] == "ltiResourceLink" and item["title"] == "Week 1"
    assert item["url"] == f"{lms.tool}/lti/launch"
    assert item["custom"] == {"paperlab_assignment": course["assignment"]}
    assert item["lineItem"]["scoreMaximum"] == 1


def test_a_learners_launch_opens_the_assignment_and_the_score_arrives_in_the_lms(
        lms: Lms, course: dict[str, Any]) -> None:
    grace = browser(lms)
    page = launch(grace, lms, "grace", link="link-week-1")
    assert page.status_code == 200 and str(page.url).endswith(f"/assignments/{course['assignment']}")
    assert "Week 1" in page.text and "loses 10% of its score per started day late" in page.text
    wrong = grace.post(f"{lms.tool}/api/problems/add_one/submissions", json={"code": WRONG})
    assert wrong.status_code == 202
    _wait(grace, lms, wrong.json()["id"])
    first = lms.platform.wait_for_score(USERS["grace"].sub)
    assert (first["scoreGiven"], first["scoreMaximum"], first["activityProgress"]) == (0, 1, "InProgress")
    right = grace.post(f"{lms.tool}/api/problems/add_one/submissions", json={"code": CORRECT})
    _wait(grace, lms, right.json()["id"])
    deadline = time.monotonic() + 60
    while lms.platform.wait_for_score(USERS["grace"].sub)["scoreGiven"] != 1:
        assert time.monotonic() < deadline, "the solving score never arrived"
        time.sleep(0.1)
    score = lms.platform.wait_for_score(USERS["grace"].sub)
    assert (score["scoreMaximum"], score["activityProgress"], score["gradingProgress"]) == (1, "Completed",
                                                                                            "FullyGraded")
    assert score["comment"] == "1 of 1 problems solved (PaperLab)"
    with lms.session() as session:
        every = session.scalars(select(LtiScore)).all()
        sent = [row for row in every if row.status == "sent"]
    assert sent, [(r.status, r.cause, r.last_error, r.response_status) for r in every]
    assert {row.cause.split(":")[0] for row in sent} == {"verdict"}
    assert all(row.response_status == 200 and row.attempts == 1 for row in sent)


def test_an_lti_learner_is_on_the_roster_and_in_the_gradebook(lms: Lms, course: dict[str, Any]) -> None:
    teacher = course["teacher"]
    members = teacher.get(f"{lms.tool}/api/instructor/courses/{course['course']}/members").json()
    grace = next(m for m in members if m["email"] == "grace@uni.edu")
    assert (grace["name"], grace["source"], grace["student_id"]) == ("Grace Hopper", "lti", "s-7")
    assert grace["joined_at"] is not None


def test_the_roster_comes_over_from_the_platforms_roster_service(lms: Lms, course: dict[str, Any]) -> None:
    teacher = course["teacher"]
    page = teacher.get(f"{lms.tool}/instructor/courses/{course['course']}")
    synced = form_post(teacher, f"{lms.tool}/instructor/courses/{course['course']}/lti", page.text, action="sync")
    assert "Roster synchronised with the platform" in synced.text
    members = teacher.get(f"{lms.tool}/api/instructor/courses/{course['course']}/members").json()
    alan = next(m for m in members if m["email"] == "alan@uni.edu")
    assert alan["joined_at"] is None and alan["student_id"] == "s-8", "listed, not yet joined"
    assert not any(m["email"] == "ada@uni.edu" for m in members), "staff are not learners"


def test_the_tools_key_rotates_and_the_platform_checks_the_new_one(lms: Lms, course: dict[str, Any]) -> None:
    before = httpx.get(f"{lms.tool}/lti/jwks.json").json()["keys"]
    with lms.session() as session:
        made = keys.make_key(session=session, secret_key="lti-test-secret-key-0123456789abcdef",
                             retire_old_after=timedelta(days=7))
    after = httpx.get(f"{lms.tool}/lti/jwks.json").json()["keys"]
    assert {k["kid"] for k in after} == {k["kid"] for k in before} | {made.kid}, "the old key stays published"
    lms.app.state.paperlab.lti.tokens = type(lms.app.state.paperlab.lti.tokens)()  # a new access token is needed
    alan = browser(lms)
    launch(alan, lms, "alan", link="link-week-1")
    submitted = alan.post(f"{lms.tool}/api/problems/add_one/submissions", json={"code": CORRECT})
    _wait(alan, lms, submitted.json()["id"])
    assert lms.platform.wait_for_score(USERS["alan"].sub)["scoreGiven"] == 1, \
        "the platform took a token asked for with the new key"


def test_an_instructors_override_is_passed_back(lms: Lms, course: dict[str, Any]) -> None:
    teacher = course["teacher"]
    book = teacher.get(f"{lms.tool}/api/instructor/courses/{course['course']}/gradebook").json()
    row = next(r for r in book["rows"] if r["member"]["email"] == "alan@uni.edu")
    base = f"{lms.tool}/instructor/courses/{course['course']}/gradebook"
    page = f"{base}/{course['assignment']}/{row['member']['id']}/add_one"
    form_post(teacher, page, teacher.get(page).text, action="set", score="40", reason="Copied from Grace")
    deadline = time.monotonic() + 60
    while lms.platform.wait_for_score(USERS["alan"].sub)["scoreGiven"] != 0.4:
        assert time.monotonic() < deadline, "the override never reached the LMS"
        time.sleep(0.1)


# --- refused launches ---------------------------------------------------------------------------------------


def said(response: httpx.Response) -> str:
    return html.unescape(response.text)


def test_a_replayed_id_token_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    client = browser(lms)
    action, fields = launch_form(client, lms, "grace", link="link-week-1")
    assert post_launch(client, lms, action, fields).status_code == 200
    again = post_launch(client, lms, action, fields)
    assert again.status_code == 400 and "used already" in said(again) and "replayed nonce" in said(again)


def test_an_id_token_replayed_under_a_fresh_state_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    client = browser(lms)
    action, first = launch_form(client, lms, "grace", link="link-week-1")
    assert post_launch(client, lms, action, first).status_code == 200
    _, second = launch_form(client, lms, "grace", link="link-week-1")
    replayed = post_launch(client, lms, action, {"id_token": first["id_token"], "state": second["state"]})
    assert replayed.status_code == 400 and "its nonce belongs to an earlier launch" in said(replayed)


def test_an_expired_state_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    client = browser(lms)
    action, fields = launch_form(client, lms, "grace", link="link-week-1")
    with lms.session() as session:
        session.execute(update(LtiState).where(LtiState.state == fields["state"])
                        .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        session.commit()
    response = post_launch(client, lms, action, fields)
    assert response.status_code == 400 and "This launch's state expired" in said(response)


def test_a_state_paperlab_never_issued_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    client = browser(lms)
    action, fields = launch_form(client, lms, "grace", link="link-week-1")
    response = post_launch(client, lms, action, {**fields, "state": "state-forged"})
    assert response.status_code == 400 and "unknown state" in said(response)


def test_a_launch_without_the_state_cookie_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    """Hostile: an attacker's page posts a launch they obtained into a victim's browser (login CSRF)."""
    action, fields = launch_form(browser(lms), lms, "grace", link="link-week-1")
    response = post_launch(browser(lms), lms, action, fields)
    assert response.status_code == 400 and "did not send back this launch's cookie" in said(response)


def hand_made(lms: Lms, client: httpx.Client, **changes: Any) -> httpx.Response:
    """A launch whose id_token the platform's key signs with `changes` to its claims."""
    action, fields = launch_form(client, lms, "grace", link="link-week-1")
    import base64
    import json

    body = fields["id_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims.pop("exp", None)
    claims.pop("iat", None)
    claims.update(changes)
    return post_launch(client, lms, action, {"state": fields["state"], "id_token": lms.platform.sign(claims)})


def test_a_token_for_another_audience_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    response = hand_made(lms, browser(lms), aud="some-other-tool", azp="some-other-tool")
    assert response.status_code == 400 and "addressed to another tool" in said(response)


def test_a_token_with_several_audiences_needs_paperlab_as_azp(lms: Lms, course: dict[str, Any]) -> None:
    response = hand_made(lms, browser(lms), aud=[CLIENT_ID, "other"], azp="other")
    assert response.status_code == 400 and "authorised party" in said(response)


def test_a_token_signed_by_another_key_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    """Hostile: the claims are right but the signature is not the platform's."""
    client = browser(lms)
    action, fields = launch_form(client, lms, "grace", link="link-week-1")
    private, public = new_key_pair()
    impostor = Platform(url=lms.platform.url, tool_url=lms.tool, private_pem=private, public_pem=public,
                        users=USERS)
    import base64
    import json

    body = fields["id_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims.pop("exp", None)
    forged = impostor.sign(claims)
    response = post_launch(client, lms, action, {"state": fields["state"], "id_token": forged})
    assert response.status_code == 400 and "did not validate" in said(response)


def test_an_unknown_deployment_is_refused(lms: Lms, course: dict[str, Any]) -> None:
    response = hand_made(lms, browser(lms), **{"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "other"})
    assert response.status_code == 400 and 'deployment ID "other" is not recognised' in said(response)


def test_a_login_from_an_unregistered_platform_is_refused(lms: Lms) -> None:
    response = httpx.get(f"{lms.tool}/lti/login", params={"iss": "https://lms.example", "login_hint": "x",
                                                          "target_link_uri": f"{lms.tool}/lti/launch"})
    assert response.status_code == 400 and "no LTI registration for issuer https://lms.example" in said(response)


def test_a_learner_cannot_open_the_content_picker(lms: Lms, course: dict[str, Any]) -> None:
    response = hand_made(lms, browser(lms), **{
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingRequest",
        "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
            "deep_link_return_url": f"{lms.platform.url}/deep-link-return", "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["window"]}})
    assert response.status_code == 400 and "Only an instructor" in said(response)


def test_the_jwks_and_the_registration_page_are_public(lms: Lms) -> None:
    keys_ = httpx.get(f"{lms.tool}/lti/jwks.json").json()["keys"]
    assert keys_ and all(k["kty"] == "RSA" and k["alg"] == "RS256" and "d" not in k for k in keys_)
    assert f"{lms.tool}/lti/login" in httpx.get(f"{lms.tool}/lti").text


def _wait(client: httpx.Client, lms: Lms, submission_id: str) -> None:
    deadline = time.monotonic() + 60
    while client.get(f"{lms.tool}/api/submissions/{submission_id}").json()["status"] not in ("done", "error"):
        assert time.monotonic() < deadline, "no verdict"
        time.sleep(0.05)
