"""Migration 0004_api_tokens on PostgreSQL: it builds exactly the model's table, and goes down and up again."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db import make_engine
from app.migrate import alembic_config, upgrade
from app.tables import Base
from tests.services.conftest import fresh_database

pytestmark = [pytest.mark.services]


def test_the_api_tokens_migration_matches_the_model_and_reverses_on_postgresql() -> None:
    with fresh_database() as url:
        engine = make_engine(url)
        try:
            upgrade(engine)
            with engine.connect() as connection:
                assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
                assert {c["name"] for c in inspect(connection).get_unique_constraints("api_tokens")} == {
                    "uq_api_tokens_token_hash"}
            config = alembic_config()
            with engine.begin() as connection:
                config.attributes["connection"] = connection
                command.downgrade(config, "0003")
            with engine.connect() as connection:
                assert "api_tokens" not in inspect(connection).get_table_names()
            upgrade(engine)
            with engine.connect() as connection:
                assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
        finally:
            engine.dispose()
