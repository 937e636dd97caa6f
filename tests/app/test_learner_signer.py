"""The learner cookie's signature (app.identity.LearnerSigner): verified answers are kept for the learners seen
lately, and keeping them changes no answer."""

from __future__ import annotations

import uuid

import pytest

from app.identity import KEPT_COOKIE_CHARS, LearnerSigner

KEY = "test-secret-key-0123456789abcdef"


@pytest.fixture
def signer() -> LearnerSigner:
    return LearnerSigner(KEY)


def test_a_signed_id_verifies_to_itself_every_time(signer: LearnerSigner) -> None:
    learner = str(uuid.uuid4())
    cookie = signer.sign(learner)
    assert [signer.verify(cookie) for _ in range(3)] == [learner] * 3


def test_a_learners_cookie_is_short_enough_to_be_kept(signer: LearnerSigner) -> None:
    assert len(signer.sign(str(uuid.uuid4()))) <= KEPT_COOKIE_CHARS


@pytest.mark.parametrize("forge", [
    lambda cookie: cookie[:-8] + ("A" if cookie[-8] != "A" else "B") + cookie[-7:],  # the signature changed
    lambda cookie: "x" + cookie,  # the payload changed
    lambda cookie: cookie + "." * (2 * KEPT_COOKIE_CHARS),  # too long to keep
    lambda cookie: LearnerSigner("another-key-0123456789abcdefghijk").sign("someone"),  # another key's
])
def test_a_forged_cookie_is_refused_before_and_after_the_real_one_is_kept(
        signer: LearnerSigner, forge: object) -> None:
    cookie = signer.sign(str(uuid.uuid4()))
    forged = forge(cookie)  # type: ignore[operator]
    assert signer.verify(forged) is None
    signer.verify(cookie)
    assert signer.verify(forged) is None


def test_a_cookie_is_verified_under_its_own_signers_key(signer: LearnerSigner) -> None:
    cookie = signer.sign("grace")
    assert signer.verify(cookie) == "grace"
    assert LearnerSigner("another-key-0123456789abcdefghijk").verify(cookie) is None  # nothing kept is shared

