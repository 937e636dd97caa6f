"""The schema comes from Alembic migrations, and they build exactly what the models describe."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db import make_engine
from app.migrate import alembic_config, upgrade
from app.tables import Base


def test_migrations_create_the_schema_from_empty_and_match_the_models(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    try:
        upgrade(engine)
        upgrade(engine)  # idempotent: a second start-up changes nothing
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) == {"alembic_version", *Base.metadata.tables}
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
            indexes = {index["name"]: index for index in inspect(connection).get_indexes("submissions")}
            assert indexes["uq_submissions_one_in_flight_per_learner"]["unique"]
    finally:
        engine.dispose()


def test_migrations_downgrade_to_nothing_and_back(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'roundtrip.db'}")
    try:
        upgrade(engine)
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) == {"alembic_version"}
        upgrade(engine)
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    finally:
        engine.dispose()
