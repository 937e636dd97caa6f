"""Optional learner accounts: an email and a password (argon2id, as the instructors'). Making an account binds
it to the learner this browser already is, so every attempt, solve and hint so far comes along; signing in on
another device makes that browser the same learner. A learner who never makes one keeps working as before.

Signing in replaces the browser's anonymous identity: work done anonymously in that browser stays with the
anonymous identity (it is not merged), and the sign-in page says so before the switch."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.courses.models import LearnerAccount
from app.errors import BadRequest, Conflict
from app.instructor.accounts import AccountError, normalise_email
from app.models import Submission
from app.trust import mark_established

MIN_PASSWORD_CHARS = 12
MAX_PASSWORD_CHARS = 1024  # argon2 hashes anything, but a megabyte password is a way to burn CPU
_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash("no such learner, but the same work")


def account_of(*, session: Session, learner_id: str) -> LearnerAccount | None:
    return session.scalars(select(LearnerAccount).where(LearnerAccount.learner_id == learner_id)).first()


def sign_up(*, session: Session, learner_id: str, email: str, password: str) -> LearnerAccount:
    try:
        address = normalise_email(email)
    except AccountError as exc:
        raise BadRequest(exc.detail) from None
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise BadRequest(f"A password has at least {MIN_PASSWORD_CHARS} characters.")
    if account_of(session=session, learner_id=learner_id) is not None:
        raise Conflict("This browser is signed in to an account already; sign out first to make another.")
    crud.ensure_learner(session=session, learner_id=learner_id)
    account = LearnerAccount(email=address, password_hash=_hasher.hash(password), learner_id=learner_id)
    session.add(account)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict(f"There is already an account for {address}; sign in instead.") from None
    # A signed-up learner is bounded as a learner, not by their network address (app.trust); sign-ups are
    # limited per address, so a flood cannot make itself known for free.
    mark_established(session=session, learner_id=learner_id, reason="account")
    return account


def authenticate(*, session: Session, email: str, password: str) -> LearnerAccount | None:
    """The account these credentials open, or None; a wrong email costs the same hashing as a wrong password."""
    try:
        address = normalise_email(email)
    except AccountError:
        address = ""
    account = (session.scalars(select(LearnerAccount).where(LearnerAccount.email == address)).first()
               if address else None)
    try:
        _hasher.verify(account.password_hash if account else _DUMMY_HASH, password[:MAX_PASSWORD_CHARS])
    except (VerificationError, InvalidHashError):
        return None
    if account is None:
        return None
    if _hasher.check_needs_rehash(account.password_hash):
        account.password_hash = _hasher.hash(password)
        session.commit()
    return account


def anonymous_attempts(*, session: Session, learner_id: str) -> int:
    """Attempts of this browser's learner when it has no account (what signing in would leave behind)."""
    if account_of(session=session, learner_id=learner_id) is not None:
        return 0
    return session.scalar(select(func.count()).where(Submission.learner_id == learner_id)) or 0
