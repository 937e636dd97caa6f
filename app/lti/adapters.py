"""PaperLab's side of pylti1p3 (the maintained fork, `pylti1p3next`): the library validates launches (the
platform's JWKS, the signature and expiry, registration, deployment, message claims), builds OIDC redirects and
deep-linking responses, and speaks the Assignment and Grade and Names and Role services. It leaves storage and the
web framework to the tool, which this module provides:

- `DatabaseToolConf`: registrations and deployments from the `lti_platforms` tables, signed with the tool's
  current key (app.lti.keys);
- `LtiRequest` and `CookieJar`: a Starlette request's parameters and cookies, and the cookies to set;
- `StateSession`: the library's session store, reduced to what a launch needs (the nonce expected for this
  state; PaperLab keeps states and launches in its own tables, app.lti.launch);
- `CachingConnector`: the service connector with the platform's access tokens cached until they expire;
- `ToolOIDCLogin` and `ToolMessageLaunch`: the library's login and launch bound to these."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests
from pylti1p3.deployment import Deployment
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request as LibraryRequest
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import SessionFactory
from app.lti.keys import SigningKey
from app.lti.models import LtiDeployment, LtiPlatform

COOKIE_PREFIX = "lti1p3-"
HTTP_TIMEOUT_S = 10.0  # a platform that does not answer within this is retried later, never waited on forever


def http_session() -> requests.Session:
    """What the library calls platforms with: PaperLab's user agent and a time limit on every request."""
    session = _TimedSession()
    session.headers["User-Agent"] = "PaperLab-LTI"
    return session


class _TimedSession(requests.Session):
    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", HTTP_TIMEOUT_S)
        return super().request(method, url, *args, **kwargs)  # type: ignore[arg-type]


def registration_for(platform: LtiPlatform, key: SigningKey) -> Registration:
    registration = (Registration().set_issuer(platform.issuer).set_client_id(platform.client_id)
                    .set_auth_login_url(platform.auth_login_url).set_auth_token_url(platform.auth_token_url)
                    .set_key_set_url(platform.key_set_url).set_tool_private_key(key.private_pem)
                    .set_tool_public_key(key.public_pem))
    if platform.auth_audience:
        registration.set_auth_audience(platform.auth_audience)
    return registration


def find_platform(session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The registration of `issuer` with `client_id`; without a client id (it is optional in a login request),
    the issuer's only registration."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id:
        return session.scalars(query.where(LtiPlatform.client_id == client_id)).first()
    found = session.scalars(query.limit(2)).all()
    return found[0] if len(found) == 1 else None


class DatabaseToolConf(ToolConfAbstract[LibraryRequest]):
    """Every issuer may have many client ids (the library's recommended mode): lookups are by issuer and client."""

    def __init__(self, session_factory: SessionFactory, signing_key: Callable[[], SigningKey]) -> None:
        super().__init__()
        self._session_factory = session_factory
        self._signing_key = signing_key
        self.issuers_relation_types = {}

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        raise NotImplementedError("PaperLab looks registrations up by issuer and client id")

    def find_registration_by_params(self, iss: str, client_id: str, *args: Any, **kwargs: Any
                                    ) -> Registration:
        """None (which the library expects for "no such registration") when the platform is unknown."""
        with self._session_factory() as session:
            platform = find_platform(session, iss, client_id)
        return registration_for(platform, self._signing_key()) if platform is not None else None  # type: ignore[return-value]

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        raise NotImplementedError("PaperLab looks deployments up by issuer and client id")

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str, *args: Any,
                                  **kwargs: Any) -> Deployment | None:
        with self._session_factory() as session:
            platform = find_platform(session, iss, client_id)
            if platform is None or session.get(LtiDeployment, (platform.id, deployment_id)) is None:
                return None
        return Deployment().set_deployment_id(deployment_id)


class LtiRequest(LibraryRequest):
    """The library's view of one request: its query and form parameters (form first)."""

    def __init__(self, params: Mapping[str, str], *, secure: bool) -> None:
        self._params = dict(params)
        self._secure = secure

    @property
    def session(self) -> dict[str, Any]:
        return {}

    def is_secure(self) -> bool:
        return self._secure

    def get_param(self, key: str) -> str:
        return self._params.get(key, "")


@dataclass
class CookieJar:
    """Cookies the request brought, and those the response must set (name -> value, max-age)."""

    incoming: Mapping[str, str]
    outgoing: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    def service(self) -> _CookieService:
        return _CookieService(self)


class _CookieService:
    def __init__(self, jar: CookieJar) -> None:
        self._jar = jar

    def get_cookie(self, name: str) -> str | None:
        return self._jar.incoming.get(COOKIE_PREFIX + name)

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self._jar.outgoing[COOKIE_PREFIX + name] = (str(value), exp)


class StateSession(SessionService):
    """The library's session store for one request. Login: the nonce it makes is read back from here and
    stored with the state in `lti_states`. Launch: the nonce it accepts is the one stored with this launch's
    state (app.lti.launch sets `expected_nonce` before validating); state is checked by its cookie."""

    def __init__(self) -> None:  # no super().__init__: it would bind a framework session PaperLab does not have
        self.issued_nonce: str | None = None
        self.expected_nonce: str | None = None
        self.launch_data: dict[str, Any] = {}

    def save_nonce(self, nonce: str) -> None:
        self.issued_nonce = nonce

    def check_nonce(self, nonce: str) -> bool:
        return self.expected_nonce is not None and nonce == self.expected_nonce

    def save_launch_data(self, key: str, jwt_body: Any) -> None:
        self.launch_data[key] = jwt_body

    def get_launch_data(self, key: str) -> Any:
        return self.launch_data.get(key)

    def save_state_params(self, state: str, params: Any) -> None:
        return None

    def get_state_params(self, state: str) -> Any:
        return {}

    def set_state_valid(self, state: str, id_token_hash: str) -> None:
        return None

    def check_state_is_valid(self, state: str, id_token_hash: str) -> bool:
        return False  # always the state cookie: a launch is accepted once, through app.lti.launch's own record


class _RedirectTo(Redirect[str]):
    def __init__(self, location: str) -> None:
        self._location = location

    def do_redirect(self) -> str:
        return self._location

    def do_js_redirect(self) -> str:
        return self._location

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class ToolOIDCLogin(OIDCLogin[LibraryRequest, DatabaseToolConf, StateSession, Any, str]):
    """`redirect(launch_url)` answers the platform's authorization URL (the route sends the redirect)."""

    def get_redirect(self, url: str) -> Redirect[str]:
        return _RedirectTo(url)


class ToolMessageLaunch(MessageLaunch[LibraryRequest, DatabaseToolConf, StateSession, Any]):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


class MemoryCache(LaunchDataStorage[Any]):
    """Platforms' key sets, kept a few minutes in this process (a launch then costs no fetch)."""

    def __init__(self) -> None:
        super().__init__()
        self._values: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_session_cookie_name(self) -> None:
        return None

    def get_value(self, key: str) -> Any:
        with self._lock:
            found = self._values.get(key)
            if found is None or found[0] < time.monotonic():
                self._values.pop(key, None)
                return None
            return found[1]

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        with self._lock:
            self._values[key] = (time.monotonic() + (exp or 300), value)

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


class TokenCache:
    """Access tokens per registration and scopes, until a minute before they expire."""

    def __init__(self) -> None:
        self._tokens: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            found = self._tokens.get(key)
            return found[1] if found is not None and found[0] > time.monotonic() else None

    def put(self, key: str, token: str, expires_in: float) -> None:
        with self._lock:
            self._tokens[key] = (time.monotonic() + max(0.0, float(expires_in or 0) - 60), token)

    def forget(self, key: str) -> None:
        with self._lock:
            self._tokens.pop(key, None)


class CachingConnector(ServiceConnector):
    def __init__(self, registration: Registration, tokens: TokenCache,
                 requests_session: requests.Session | None = None) -> None:
        super().__init__(registration, requests_session or http_session())
        self._tokens = tokens

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        return self._tokens.get(self._key(scope_key))

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        self._tokens.put(self._key(scope_key), access_token, expires_in)

    def forget_tokens(self, scopes: list[str]) -> None:
        self._tokens.forget(self._key(self._scope_key(sorted(scopes))))

    def _key(self, scope_key: str) -> str:
        return f"{self._registration.get_client_id()}|{scope_key}"
