"""Everything a running app holds, built at start-up (lifespan) and reached through `app.deps`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import redis
from sqlalchemy import Engine
from starlette.templating import Jinja2Templates

from app.author_selftest import AuthorSelftests, selftest_command
from app.catalog import ProblemCatalog, load_catalog
from app.db import SessionFactory, make_engine, make_session_factory
from app.grading import EventBus, GradingBackend, make_backend, make_event_bus
from app.identity import LearnerSigner, resolve_secret_key
from app.lti.passback import PassbackSender
from app.lti.runtime import LtiRuntime
from app.migrate import upgrade
from app.ratelimit import RateLimit, make_rate_limit
from app.scratch_runs import ScratchRuns
from app.settings import Settings
from app.streams import OpenStreams
from app.templating import make_templates

logger = logging.getLogger(__name__)

TOKEN_FAILURES_PER_ADDRESS = 30  # a mistyped or expired token fails a few times; a guesser fails thousands of times
TOKEN_FAILURE_WINDOW_S = 600.0


@dataclass
class BackendContext:
    """What a backend is built from (`create_app(backend_factory=...)` receives it)."""

    settings: Settings
    session_factory: SessionFactory
    catalog: ProblemCatalog
    bus: EventBus


BackendFactory = Callable[[BackendContext], GradingBackend]


@dataclass
class AppState:
    settings: Settings
    engine: Engine
    session_factory: SessionFactory
    catalog: ProblemCatalog
    bus: EventBus
    backend: GradingBackend
    templates: Jinja2Templates
    signer: LearnerSigner
    streams: OpenStreams
    address_rate: RateLimit
    lti: LtiRuntime
    passback: PassbackSender
    token_failures: RateLimit  # refused API tokens per network address (app.token_auth)
    scratch_runs: ScratchRuns = field(default_factory=ScratchRuns)
    shared_redis: redis.Redis | None = None  # grading on Celery: what every web process shares (rate limits)
    author_selftests: AuthorSelftests | None = None  # author mode only: the banner's background self-tests

    def rate_limit(self, name: str, *, limit: int, window_s: float) -> RateLimit:
        """A limit every web process of the site counts together (in Redis), or this process alone."""
        return make_rate_limit(self.shared_redis, prefix=self.settings.redis_key_prefix, name=name, limit=limit,
                               window_s=window_s)

    @property
    def unsafe_sandbox(self) -> bool:
        return self.settings.unsafe_no_sandbox or self.backend.health().sandbox == "none"


def default_backend_factory(context: BackendContext) -> GradingBackend:
    return make_backend(
        settings=context.settings,
        session_factory=context.session_factory,
        problems=context.catalog,
        bus=context.bus,
    )


def build_state(settings: Settings, backend_factory: BackendFactory | None = None) -> AppState:
    """Open the database (migrated to head), load the problems, build the grading backend (not started)."""
    if settings.unsafe_no_sandbox:
        logger.warning("PAPERLAB_UNSAFE_NO_SANDBOX is set: submissions run WITHOUT a sandbox")
    engine = make_engine(settings.database_url)
    upgrade(engine)
    session_factory = make_session_factory(engine)
    catalog = load_catalog(settings.problems_dir)
    bus = make_event_bus(settings)
    context = BackendContext(settings=settings, session_factory=session_factory, catalog=catalog, bus=bus)
    backend = (backend_factory or default_backend_factory)(context)
    shared_redis = _shared_redis(settings)
    lti = LtiRuntime.from_settings(settings, session_factory, resolve_secret_key(settings))
    return AppState(
        settings=settings,
        engine=engine,
        session_factory=session_factory,
        catalog=catalog,
        bus=bus,
        backend=backend,
        templates=make_templates(settings.templates_dir),
        signer=LearnerSigner(resolve_secret_key(settings)),
        streams=OpenStreams(per_learner=settings.streams_per_learner, per_address=settings.streams_per_address),
        address_rate=make_rate_limit(shared_redis, prefix=settings.redis_key_prefix, name="submissions-per-address",
                                     limit=settings.address_rate_limit_per_minute, window_s=60.0),
        lti=lti,
        passback=PassbackSender(lti),
        token_failures=make_rate_limit(shared_redis, prefix=settings.redis_key_prefix, name="api-token-failures",
                                       limit=TOKEN_FAILURES_PER_ADDRESS, window_s=TOKEN_FAILURE_WINDOW_S),
        shared_redis=shared_redis,
        author_selftests=AuthorSelftests(settings.problems_dir, selftest_command(unsafe=settings.unsafe_no_sandbox))
        if settings.author_mode else None,
    )


def _shared_redis(settings: Settings) -> redis.Redis | None:
    """A site grading on Celery has Redis and, usually, several web processes: their limits are counted there."""
    if not settings.celery_broker_url:
        return None
    from app.grading.celery_backend import redis_url
    from app.grading.redis_events import make_redis

    return make_redis(redis_url(settings))
