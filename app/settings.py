"""The one typed settings object. Every value comes from the environment (or a `.env` file) through here;
nothing else in the app reads `os.environ`. docs/operations.md's "Settings" section lists every field (a test
checks)."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.trust import EstablishedAfter

REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PAPERLAB_",
        env_file=".env",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    var_dir: Path = Field(
        default=Path("var"), description="Folder for run-time state (generated secret key, default SQLite file)."
    )
    database_url: str = Field(
        default="",
        validate_default=True,
        validation_alias=AliasChoices("DATABASE_URL", "database_url"),
        description="SQLAlchemy URL of the database; unset: the SQLite file `PAPERLAB_VAR_DIR/paperlab.db`. "
        "PostgreSQL: `postgresql+psycopg://user:password@host/db`.",
    )

    celery_broker_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("CELERY_BROKER_URL", "celery_broker_url"),
        description="Broker of the Celery grading queue (e.g. `redis://localhost:6379/0`); "
        "unset: grade in the web process.",
    )
    redis_url: str | None = Field(
        default=None,
        description="Redis for live grading events, worker heartbeats and enqueue markers when grading on "
        "Celery; unset: `CELERY_BROKER_URL` (then a `redis://` URL).",
    )
    redis_key_prefix: str = Field(
        default="paperlab:",
        description="Prefix of every Redis key PaperLab and the Celery broker use (several sites can share one "
        "Redis).",
    )
    celery_visibility_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="Seconds before the broker hands a taken but unacknowledged grading task (its worker died) "
        "to another worker; longer than one grading.",
    )
    grading_lease_margin_s: float = Field(
        default=60.0,
        ge=0,
        description="Seconds beyond a problem's time limits after which a `running` submission counts as "
        "abandoned (its worker died) and is queued again.",
    )
    grading_lease_wall_factor: float = Field(
        default=2.0,
        ge=1,
        description="How many times its time limits a grading may last by the wall clock before its submission "
        "counts as abandoned (at most the problem's wall_ceiling_factor). Higher waits longer for a dead worker; "
        "lower may grade a submission twice on a machine loaded past it (the verdict is the same).",
    )
    sweep_interval_s: float = Field(
        default=15.0,
        gt=0,
        description="Seconds between the web server's sweeps for abandoned or never-enqueued submissions "
        "(Celery only).",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        min_length=16,
        description="Key that signs the learner cookie; unset: generated once and kept in "
        "`PAPERLAB_VAR_DIR/secret_key` (mode 600).",
    )
    problems_dir: Path = Field(default=REPO_ROOT / "problems", description="Folder holding one sub-folder per problem.")
    problems_reload_s: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="Seconds between looks at the problems folder for problems added, changed or removed, which "
        "are then served without a restart (a folder that stops loading keeps its last good version); 0: off. "
        "One look costs a stat per file (about 7 ms for the 42 problems and 1,500 files of this repository). "
        "Celery workers look again at a submission's folder just before grading it.",
    )
    author_mode: bool = Field(
        default=False,
        description="Show problem authors a banner on the pages of a problem that does not load or whose "
        "contract has clauses no required check tests, with the problem's self-test (rerun in the background "
        "after each save) and the statement's TeX errors and too-wide equations (development only: learners "
        "should not see it).",
    )
    templates_dir: Path = Field(default=REPO_ROOT / "templates", description="Folder of the Jinja2 page templates.")
    static_dir: Path = Field(
        default=REPO_ROOT / "static", description="Folder served at `/static` (the bundle in `dist/`)."
    )
    grading_concurrency: int = Field(
        default_factory=lambda: 2 * (os.cpu_count() or 1),
        ge=1,
        le=64,
        description="Submissions graded at once (grading threads and warm sandboxes); default twice the CPU cores, "
        "because a grading alternates between the judge in this process and its sandboxed child.",
    )
    prepare_problems: bool = Field(
        default=True,
        description="After start-up, do each problem's first-grading work that needs no submission (drawing its "
        "property search's examples) on a background thread while nothing is being graded, so the first learner "
        "to press Run on a problem does not wait for it (grader/prepare.py).",
    )
    queue_limit: int = Field(
        default=100,
        ge=1,
        description="Submissions that may wait for grading; beyond it POST answers 503 + Retry-After.",
    )
    max_code_bytes: int = Field(
        default=200_000, ge=1, description="Largest submission accepted, in UTF-8 bytes; larger gets 413."
    )
    rate_limit_per_minute: int = Field(
        default=20, ge=1, description="Submissions one learner may create per minute; more gets 429 + Retry-After."
    )
    address_rate_limit_per_minute: int = Field(
        default=120,
        ge=1,
        description="Submissions and \"Try it\" runs one network address (IPv4 address, IPv6 /64) may create per "
        "minute from learners who are not established (`PAPERLAB_ESTABLISHED_AFTER`); more gets 429 + "
        "Retry-After. Established learners are bounded per learner only, so a class behind one NAT is not held back.",
    )
    queue_limit_per_address: int = Field(
        default=4,
        ge=1,
        description="Submissions from one network address that may wait for grading at once (those being graded "
        "do not count), counting learners who are not established (`PAPERLAB_ESTABLISHED_AFTER`); beyond it POST "
        "answers 429 + Retry-After.",
    )
    established_after: EstablishedAfter = Field(
        default_factory=EstablishedAfter,
        description="When a learner has earned trust, as JSON: `{\"graded_submissions\": 1, \"first_seen_s\": "
        "300}` (the default) means one graded submission and first seen five minutes ago. The per-address limits "
        "(`PAPERLAB_ADDRESS_RATE_LIMIT_PER_MINUTE`, `PAPERLAB_QUEUE_LIMIT_PER_ADDRESS`) do not count an established "
        "learner, so a class behind one address is served; the per-learner limits still do.",
    )
    streams_per_learner: int = Field(
        default=4, ge=1, description="Event streams one learner may hold open; more gets 429 + Retry-After."
    )
    streams_per_address: int = Field(
        default=32,
        ge=1,
        description="Event streams one network address may hold open, whichever learners hold them; more gets "
        "429 + Retry-After.",
    )
    unsafe_no_sandbox: bool = Field(
        default=False,
        description="Run submissions WITHOUT bubblewrap (development only; every page and report says so).",
    )
    slow_call_s: float = Field(
        default=2.0,
        gt=0,
        description="Seconds a learner call must run before the page names it (\"momentum_update has been "
        "running for 6 s\") beside the Stop button.",
    )
    sse_heartbeat_s: float = Field(
        default=15.0, gt=0, description="Seconds between keep-alive comments on an idle event stream."
    )
    lti_key_rotation_days: float = Field(
        default=90.0,
        gt=0,
        description="Days the LTI tool signs with one RSA key before a new key takes over (the old one stays "
        "published in `/lti/jwks.json` for `PAPERLAB_LTI_KEY_RETIRE_DAYS`).",
    )
    lti_key_retire_days: float = Field(
        default=7.0,
        ge=0,
        description="Days a replaced LTI signing key stays in the published key set, for platforms that cached it.",
    )
    cookie_secure: bool = Field(
        default=False, description="Mark the learner cookie `Secure` (set it when the site is served over HTTPS)."
    )

    @field_validator("database_url")
    @classmethod
    def _default_database_in_var_dir(cls, value: str, info: ValidationInfo) -> str:
        if value:
            return value
        return f"sqlite:///{info.data.get('var_dir', Path('var')) / 'paperlab.db'}"

    @property
    def secret_key_file(self) -> Path:
        return self.var_dir / "secret_key"


def environment_variable(field_name: str) -> str:
    """The environment variable that sets `field_name` (what docs/operations.md documents)."""
    alias = Settings.model_fields[field_name].validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return f"{Settings.model_config.get('env_prefix', '')}{field_name}".upper()
