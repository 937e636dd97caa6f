"""The tool's RSA keys: the newest signs (deep-linking responses, the client assertions that ask a platform for
an access token), and every key not yet retired is published in the JWKS (`GET /lti/jwks.json`), where
platforms look up the `kid` a message names.

Rotation: when the signing key is older than PAPERLAB_LTI_KEY_ROTATION_DAYS (or on `python -m app lti
rotate-key`), a new key takes over and the old one stays published for PAPERLAB_LTI_KEY_RETIRE_DAYS more, so
that a platform which cached our key set, or is still checking a message signed a moment ago, keeps working.
Two processes rotating at once make two keys; both are published and the newer signs, which is harmless.

Private keys are stored encrypted (Fernet) under a key derived from the site's secret key, so a copy of the
database alone does not let anyone sign as PaperLab."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from jwcrypto.jwk import JWK
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from app.lti.models import LtiKey
from app.models import utcnow

RSA_BITS = 2048  # what LTI platforms accept everywhere (RS256)


class KeyUnreadable(RuntimeError):
    """A stored private key cannot be decrypted: the site's secret key changed since it was made."""


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private_pem: str
    public_pem: str


@dataclass(frozen=True)
class KeyPolicy:
    rotation: timedelta
    retire_after: timedelta


def _fernet(secret_key: str) -> Fernet:
    derived = hashlib.sha256(b"paperlab.lti-keys\0" + secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(derived))


def _public_jwk(jwk: JWK) -> dict[str, Any]:
    public: dict[str, Any] = json.loads(jwk.export_public())
    return {**public, "kid": jwk.thumbprint(), "alg": "RS256", "use": "sig"}


def make_key(*, session: Session, secret_key: str, retire_old_after: timedelta) -> SigningKey:
    """A new signing key; every key still without a retirement date gets one `retire_old_after` from now."""
    jwk = JWK.generate(kty="RSA", size=RSA_BITS)
    private_pem = jwk.export_to_pem(private_key=True, password=None).decode()
    now = utcnow()
    session.execute(update(LtiKey).where(LtiKey.retire_at.is_(None)).values(retire_at=now + retire_old_after))
    session.add(LtiKey(kid=jwk.thumbprint(), private_key=_fernet(secret_key).encrypt(private_pem.encode()).decode(),
                       public_jwk=json.dumps(_public_jwk(jwk)), created_at=now))
    session.commit()
    return SigningKey(kid=jwk.thumbprint(), private_pem=private_pem, public_pem=jwk.export_to_pem().decode())


def signing_key(*, session: Session, secret_key: str, policy: KeyPolicy) -> SigningKey:
    """The key to sign with now: the newest unretired one, or a new one when it is older than the rotation
    period (or there is none, or it was made under another secret key)."""
    newest = session.scalars(select(LtiKey).where(LtiKey.retire_at.is_(None))
                             .order_by(LtiKey.created_at.desc()).limit(1)).first()
    if newest is None or utcnow() - newest.created_at >= policy.rotation:
        return make_key(session=session, secret_key=secret_key, retire_old_after=policy.retire_after)
    try:
        private_pem = _fernet(secret_key).decrypt(newest.private_key.encode()).decode()
    except InvalidToken:
        return make_key(session=session, secret_key=secret_key, retire_old_after=policy.retire_after)
    jwk = JWK.from_pem(private_pem.encode())
    return SigningKey(kid=newest.kid, private_pem=private_pem, public_pem=jwk.export_to_pem().decode())


def published_jwks(*, session: Session) -> dict[str, list[dict[str, Any]]]:
    """Every key that has not reached its retirement time, newest first."""
    now = utcnow()
    rows = session.scalars(select(LtiKey).where(or_(LtiKey.retire_at.is_(None), LtiKey.retire_at > now))
                           .order_by(LtiKey.created_at.desc()))
    return {"keys": [json.loads(row.public_jwk) for row in rows]}
