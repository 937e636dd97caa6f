"""What the LTI side holds while the app runs: the session factory, the site's secret (for the tool's keys), the
key policy, and the caches of platforms' key sets and access tokens. One per app (`app.state.lti`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import requests

from app.db import SessionFactory
from app.lti import keys
from app.lti.adapters import CachingConnector, DatabaseToolConf, MemoryCache, TokenCache, registration_for
from app.lti.models import LtiPlatform
from app.settings import Settings


@dataclass
class LtiRuntime:
    session_factory: SessionFactory
    secret_key: str
    policy: keys.KeyPolicy
    platform_keys: MemoryCache = field(default_factory=MemoryCache)
    tokens: TokenCache = field(default_factory=TokenCache)

    @classmethod
    def from_settings(cls, settings: Settings, session_factory: SessionFactory, secret_key: str) -> LtiRuntime:
        return cls(session_factory=session_factory, secret_key=secret_key, policy=keys.KeyPolicy(
            rotation=timedelta(days=settings.lti_key_rotation_days),
            retire_after=timedelta(days=settings.lti_key_retire_days)))

    def signing_key(self) -> keys.SigningKey:
        with self.session_factory() as session:
            return keys.signing_key(session=session, secret_key=self.secret_key, policy=self.policy)

    def tool_conf(self) -> DatabaseToolConf:
        return DatabaseToolConf(self.session_factory, self.signing_key)

    def connector(self, platform: LtiPlatform, http: requests.Session) -> CachingConnector:
        """A service connector over `http` (the caller's session, closed when its work is done)."""
        return CachingConnector(registration_for(platform, self.signing_key()), self.tokens, http)
