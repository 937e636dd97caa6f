"""Optional learner accounts: making one keeps the browser's history, signing in elsewhere brings it there, and
an anonymous learner is untouched. And identified learners (account, course, LTI) are limited per learner, not
per network address: a lab behind one address runs together, a flood of fresh cookies does not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.identity import LearnerSigner
from app.trust import EstablishedAfter, is_established
from tests.app.app_support import CORRECT, HeldGrader, TestClient, from_address, held_backend, run, submit
from tests.app.conftest import Server
from tests.app.course_support import Teacher, join

PASSWORD = "a long enough password"


def sign_up(client: TestClient, email: str = "grace@uni.edu", password: str = PASSWORD) -> Any:
    return client.post("/account/signup", data={"email": email, "password": password, "password_again": password},
                       follow_redirects=False)


def sign_in(client: TestClient, email: str = "grace@uni.edu", password: str = PASSWORD) -> Any:
    return client.post("/account/signin", data={"email": email, "password": password}, follow_redirects=False)


def test_an_account_keeps_the_browsers_history_and_brings_it_to_another_device(server: Server) -> None:
    laptop = server.learner()
    assert run(laptop, CORRECT)["status"] == "done"
    assert sign_up(laptop).status_code == 303
    phone = server.learner()
    assert sign_in(phone).status_code == 303
    attempts = phone.get("/api/problems/add_one/submissions").json()
    assert len(attempts) == 1 and attempts[0]["solved"], "the phone sees the laptop's solve"
    assert phone.cookies["paperlab_learner"] == laptop.cookies["paperlab_learner"]


def test_the_password_is_stored_as_an_argon2id_hash(server: Server) -> None:
    sign_up(server.learner())
    from sqlalchemy import select

    from app.courses.models import LearnerAccount

    with server.app.state.paperlab.session_factory() as session:
        stored = session.scalars(select(LearnerAccount.password_hash)).one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


@pytest.mark.parametrize(("email", "password", "problem"), [
    pytest.param("not-an-email", PASSWORD, "is not an email address", id="email"),
    pytest.param("grace@uni.edu", "short", "at least 12 characters", id="password"),
])
def test_a_bad_sign_up_says_why(server: Server, email: str, password: str, problem: str) -> None:
    response = sign_up(server.learner(), email, password)
    assert response.status_code == 400 and problem in response.text


def test_an_email_has_one_account(server: Server) -> None:
    sign_up(server.learner())
    response = sign_up(server.learner())
    assert response.status_code == 409 and "already an account for grace@uni.edu" in response.text


@pytest.mark.parametrize(("email", "password"), [("grace@uni.edu", "wrong password!"), ("nobody@uni.edu", PASSWORD)])
def test_a_wrong_email_or_password_is_refused_alike(server: Server, email: str, password: str) -> None:
    sign_up(server.learner())
    response = sign_in(server.learner(), email, password)
    assert response.status_code == 401
    assert "do not match a learner account" in response.text


def test_signing_in_warns_that_this_browsers_anonymous_work_stays_behind(server: Server) -> None:
    sign_up(server.learner())
    other = server.learner()
    run(other, CORRECT)
    assert "This browser has 1 attempts made without an account" in other.get("/account").text


def test_sign_out_makes_the_browser_a_new_anonymous_learner(server: Server) -> None:
    client = server.learner()
    run(client, CORRECT)
    sign_up(client)
    before = client.cookies["paperlab_learner"]
    assert client.post("/account/signout", follow_redirects=False).status_code == 303
    assert client.cookies["paperlab_learner"] != before
    assert client.get("/api/problems/add_one/submissions").json() == []
    assert sign_in(client).status_code == 303 and len(client.get("/api/problems/add_one/submissions").json()) == 1


def test_an_anonymous_learner_works_as_before(server: Server) -> None:
    client = server.learner()
    assert run(client, CORRECT)["report"]["solved"]
    assert client.get("/problems/add_one/notes").status_code == 200


def test_sign_ins_are_limited_per_account(server: Server) -> None:
    sign_up(server.learner())
    attacker = server.learner()
    codes = [sign_in(attacker, password="wrong password!").status_code for _ in range(11)]
    assert codes[:10] == [401] * 10 and codes[10] == 429


# --- identified learners and the limits per address -----------------------------------------------------------


def learner_of(client: TestClient) -> str:
    return LearnerSigner("test-secret-key-0123456789abcdef").verify(client.cookies["paperlab_learner"]) or ""


def test_members_and_account_holders_are_vouched_for_and_a_visitor_is_not(server: Server) -> None:
    """Joining a course and making an account establish a learner at once (app.trust.mark_established): the
    per-address caps then leave them alone. A visitor with a fresh cookie is not established."""
    visitor, member, account = server.learner(), server.learner(), server.learner()
    visitor.get("/")
    teacher = Teacher(server.app)
    join(member, teacher.join_code(teacher.create_course()))
    sign_up(account)
    rule = EstablishedAfter()
    with server.app.state.paperlab.session_factory() as session:
        assert [is_established(session=session, learner_id=learner_of(client), rule=rule)
                for client in (visitor, member, account)] == [False, True, True]


LAB = 30


@pytest.fixture
def held_lab(make_server: Callable[..., Server]) -> tuple[Server, HeldGrader]:
    grader = HeldGrader()
    return make_server(backend_factory=held_backend(grader), grading_concurrency=1, queue_limit=200,
                       address_rate_limit_per_minute=20), grader


def test_a_lab_of_thirty_enrolled_learners_behind_one_address_all_get_in(held_lab: tuple[Server, HeldGrader]) -> None:
    server, grader = held_lab
    teacher = Teacher(server.app)
    code = teacher.join_code(teacher.create_course())
    lab = [from_address(server.app, "203.0.113.7") for _ in range(LAB)]
    for number, learner in enumerate(lab):
        assert join(learner, code, name=f"Learner {number}").status_code == 303
    try:
        codes = [submit(learner, CORRECT).status_code for learner in lab]
        assert codes == [202] * LAB, "an enrolled class behind one NAT address is limited per learner"
    finally:
        grader.release.set()


def test_a_flood_of_fresh_cookies_from_one_address_is_still_capped(held_lab: tuple[Server, HeldGrader]) -> None:
    server, grader = held_lab
    try:
        codes = [submit(from_address(server.app, "203.0.113.8"), CORRECT).status_code for _ in range(10)]
        # One is being graded (grading_concurrency 1) and four wait: PAPERLAB_QUEUE_LIMIT_PER_ADDRESS.
        assert codes[:5] == [202] * 5, "the first submissions of an address get in"
        assert set(codes[5:]) == {429}, "then the address's share of the queue is full"
    finally:
        grader.release.set()
