"""Instructor accounts (made by an operator, see app.instructor.cli) and their passwords, hashed with argon2id
(argon2-cffi's defaults, RFC 9106's second recommended parameter set)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import BadRequest
from app.instructor.models import Instructor

MIN_PASSWORD_CHARS = 12
_hasher = PasswordHasher()
# Verified against when the email is unknown, so that a wrong email takes as long as a wrong password and the
# time of an answer does not tell which accounts exist.
_DUMMY_HASH = _hasher.hash("no such instructor, but the same work")


class AccountError(BadRequest):
    """An account could not be made or removed; the message says why."""


def normalise_email(email: str) -> str:
    value = email.strip().lower()
    if "@" not in value or value.startswith("@") or value.endswith("@") or len(value) > 254:
        raise AccountError(f"'{email}' is not an email address.")
    return value


def add_instructor(*, session: Session, email: str, password: str) -> Instructor:
    address = normalise_email(email)
    if len(password) < MIN_PASSWORD_CHARS:
        raise AccountError(f"The password must have at least {MIN_PASSWORD_CHARS} characters.")
    instructor = Instructor(email=address, password_hash=_hasher.hash(password))
    session.add(instructor)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise AccountError(f"There is already an instructor '{address}'.") from None
    return instructor


def list_instructors(*, session: Session) -> list[Instructor]:
    return list(session.scalars(select(Instructor).order_by(Instructor.email)))


def remove_instructor(*, session: Session, email: str) -> None:
    """Removes the account and, with it (ON DELETE CASCADE), every session it had open."""
    address = normalise_email(email)
    result = session.execute(delete(Instructor).where(Instructor.email == address))
    if getattr(result, "rowcount", 0) == 0:
        session.rollback()
        raise AccountError(f"There is no instructor '{address}'.")
    session.commit()


def authenticate(*, session: Session, email: str, password: str) -> Instructor | None:
    """The instructor whose email and password these are, or None; the same work either way."""
    try:
        address = normalise_email(email)
    except AccountError:
        address = ""
    instructor = session.scalars(select(Instructor).where(Instructor.email == address)).first() if address else None
    try:
        _hasher.verify(instructor.password_hash if instructor else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if instructor is None:
        return None
    if _hasher.check_needs_rehash(instructor.password_hash):  # parameters were raised since it was hashed
        instructor.password_hash = _hasher.hash(password)
        session.commit()
    return instructor
