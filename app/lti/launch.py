"""The LTI 1.3 protocol at PaperLab's door: the OIDC third-party-initiated login, and the launch that follows it.

Login (`/lti/login`, GET or POST from the platform): the registration is found by issuer and client id, the
library builds the authorization redirect with a fresh state and nonce, and PaperLab stores the pair in
`lti_states` (5 minutes) and sets a cookie named after the state, which binds the launch to this browser.

Launch (`/lti/launch`, the platform's form POST of `id_token` and `state`), refused with a sentence that says
why unless every step holds:
1. the state is one PaperLab issued, not expired and not used yet;
2. this browser holds the state's cookie;
3. the id_token's audience is a client id registered for its issuer (with `azp` naming it when there are
   several audiences), and its nonce is the one issued with this state;
4. the library's validation: the platform's JWKS (fetched, cached a few minutes, fetched again once when the
   `kid` is unknown: the platform rotated), signature, expiry, registration, deployment, message claims;
5. the state is marked used in one UPDATE, so a replayed id_token (same state, same nonce) is refused even
   when two copies race.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pylti1p3.exception import LtiException, OIDCException
from sqlalchemy import select, update

from app.errors import BadRequest
from app.lti.adapters import (
    CookieJar,
    LtiRequest,
    StateSession,
    ToolMessageLaunch,
    ToolOIDCLogin,
    find_platform,
    http_session,
)
from app.lti.models import LtiPlatform, LtiState
from app.lti.runtime import LtiRuntime
from app.models import utcnow

STATE_TTL = timedelta(minutes=5)  # the platform's round trip takes seconds; a stale state is a replay or a lost tab
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


class LaunchRefused(BadRequest):
    title = "This LTI launch was refused"


@dataclass(frozen=True)
class LoginRedirect:
    url: str
    cookies: dict[str, tuple[str, int | None]]


@dataclass(frozen=True)
class ValidatedLaunch:
    platform_id: str
    claims: dict[str, Any]
    launch_id: str

    @property
    def message_type(self) -> str:
        return str(self.claims.get(CLAIM + "message_type", ""))


def start_login(runtime: LtiRuntime, params: dict[str, str], *, secure: bool, launch_url: str) -> LoginRedirect:
    issuer, client_id = params.get("iss", ""), params.get("client_id") or None
    if not issuer or not params.get("login_hint"):
        raise LaunchRefused("A login request needs `iss` and `login_hint`; start the launch from your course in "
                            "the LMS.")
    target = params.get("target_link_uri", "")
    if target and _origin(target) != _origin(launch_url):
        raise LaunchRefused(f"This login is for another tool (target_link_uri {target[:200]}), not this "
                            f"PaperLab ({_origin(launch_url)}).")
    with runtime.session_factory() as session:
        platform = find_platform(session, issuer, client_id)
        if platform is None:
            raise LaunchRefused(_unregistered(issuer, client_id))
        platform_id = platform.id
    jar, store = CookieJar(incoming={}), StateSession()
    login = ToolOIDCLogin(LtiRequest(params, secure=secure), runtime.tool_conf(), session_service=store,
                          cookie_service=jar.service())
    try:
        url = login.redirect(launch_url)
    except (OIDCException, LtiException) as exc:
        raise LaunchRefused(f"The login could not start: {exc}.") from None
    state = parse_qs(urlsplit(url).query).get("state", [""])[0]
    if not state or store.issued_nonce is None:
        raise LaunchRefused("The login could not start: no state was made.")
    now = utcnow()
    with runtime.session_factory() as session:
        session.add(LtiState(state=state, nonce=store.issued_nonce, platform_id=platform_id, created_at=now,
                             expires_at=now + STATE_TTL))
        session.commit()
    return LoginRedirect(url=url, cookies=jar.outgoing)


def validate_launch(runtime: LtiRuntime, params: dict[str, str], cookies: dict[str, str], *,
                    secure: bool) -> ValidatedLaunch:
    state, id_token = params.get("state", ""), params.get("id_token", "")
    if not state or not id_token:
        raise LaunchRefused("A launch needs `id_token` and `state`; open the link from your course in the LMS.")
    unverified = _unverified_claims(id_token)
    with runtime.session_factory() as session:
        row = session.get(LtiState, state)
        if row is None:
            raise LaunchRefused("PaperLab did not start this launch (unknown state); open the link from your course "
                                "in the LMS again.")
        if row.used_at is not None:
            raise LaunchRefused("This launch was used already: an id_token is accepted once (a replayed nonce). "
                                "Open the link from your course in the LMS again.")
        if row.expires_at <= utcnow():
            raise LaunchRefused(f"This launch's state expired: more than {int(STATE_TTL.total_seconds() // 60)} "
                                "minutes passed between the LMS and PaperLab. Open the link from your course again.")
        platform = session.get(LtiPlatform, row.platform_id)
        expected_nonce = row.nonce
        assert platform is not None  # the state's foreign key keeps it
        _check_audience(unverified, platform)
        nonce = str(unverified.get("nonce", ""))
        if nonce != expected_nonce:
            replayed = session.scalars(select(LtiState).where(LtiState.nonce == nonce)).first()
            if replayed is not None and replayed.used_at is not None:
                raise LaunchRefused("This id_token was used already (its nonce belongs to an earlier launch); "
                                    "a replayed launch is refused. Open the link from your course again.")
            raise LaunchRefused("The id_token's nonce is not the one PaperLab issued for this launch.")
    if cookies.get("lti1p3-" + state) != state:
        raise LaunchRefused("Your browser did not send back this launch's cookie. Open PaperLab in a new window "
                            "(not inside the LMS page), over HTTPS, with cookies allowed.")
    claims = _library_validation(runtime, params, cookies, secure=secure, expected_nonce=expected_nonce)
    with runtime.session_factory() as session:
        taken = session.execute(update(LtiState).where(LtiState.state == state, LtiState.used_at.is_(None))
                                .values(used_at=utcnow()))
        session.commit()
    if getattr(taken, "rowcount", 0) != 1:
        raise LaunchRefused("This launch was used already: an id_token is accepted once (a replayed nonce).")
    return ValidatedLaunch(platform_id=platform.id, claims=claims, launch_id=f"launch-{uuid.uuid4()}")


def _library_validation(runtime: LtiRuntime, params: dict[str, str], cookies: dict[str, str], *, secure: bool,
                        expected_nonce: str) -> dict[str, Any]:
    for attempt in (1, 2):
        store = StateSession()
        store.expected_nonce = expected_nonce
        with http_session() as http:
            launch = ToolMessageLaunch(LtiRequest(params, secure=secure), runtime.tool_conf(),
                                       session_service=store, cookie_service=CookieJar(incoming=cookies).service(),
                                       requests_session=http)
            launch.set_public_key_caching(runtime.platform_keys, cache_lifetime=300)
            try:
                launch.validate()
            except LtiException as exc:
                if attempt == 1 and "Unable to find public key" in str(exc):
                    runtime.platform_keys.clear()  # the platform rotated its key: fetch its key set again, once
                    continue
                raise LaunchRefused(f"The launch did not validate: {exc}") from None
        return dict(launch.get_launch_data())
    raise LaunchRefused("The launch did not validate: the platform's key set has no key with this id_token's kid.")


def _check_audience(claims: dict[str, Any], platform: LtiPlatform) -> None:
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else list(audience or [])
    if platform.client_id not in audiences:
        raise LaunchRefused(f"This id_token is addressed to another tool (aud {audiences}); PaperLab's client id "
                            f"with this platform is {platform.client_id}.")
    if len(audiences) > 1 and claims.get("azp") != platform.client_id:
        raise LaunchRefused("This id_token names several audiences but not PaperLab as its authorised party (azp).")


def _unverified_claims(id_token: str) -> dict[str, Any]:
    """The id_token's body, unverified: read only to choose what to check, and to refuse early."""
    parts = id_token.split(".")
    if len(parts) != 3:
        raise LaunchRefused("The id_token is not a JWT (it must have three parts).")
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        body = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, UnicodeDecodeError):
        raise LaunchRefused("The id_token's body cannot be decoded.") from None
    if not isinstance(body, dict):
        raise LaunchRefused("The id_token's body is not a JSON object.")
    return body


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _unregistered(issuer: str, client_id: str | None) -> str:
    which = f"issuer {issuer}" + (f" and client id {client_id}" if client_id else "")
    return (f"PaperLab has no LTI registration for {which}. An operator registers the platform with "
            "`python -m app lti add-platform` (docs/lti.md).")
