"""Engine and sessions. SQLite (the default) gets WAL, foreign keys and a busy timeout so grading threads and
request handlers can share one file; any other URL (PostgreSQL) is used as SQLAlchemy makes it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SessionFactory = sessionmaker[Session]

# Grading threads write while requests read; WAL lets readers proceed, and a writer waits (not fails) up to
# this long for another writer's transaction to end.
SQLITE_BUSY_TIMEOUT_MS = 5_000


def make_engine(database_url: str) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _configure_sqlite)
    return engine


def _configure_sqlite(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_session_factory(engine: Engine) -> SessionFactory:
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def transaction(session_factory: SessionFactory) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back on any exception."""
    with session_factory() as session, session.begin():
        yield session
