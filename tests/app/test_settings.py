"""Settings are documented, typed and defaulted; the secret key is generated once, privately; importing the
app has no side effects."""

from __future__ import annotations

import importlib
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.identity import resolve_secret_key
from app.settings import REPO_ROOT, Settings, environment_variable


def _settings_section() -> str:
    operations = (REPO_ROOT / "docs" / "operations.md").read_text()
    match = re.search(r"^## Settings\n(.*?)(?=^## |\Z)", operations, flags=re.MULTILINE | re.DOTALL)
    assert match, 'docs/operations.md has no "## Settings" section'
    return match.group(1)


@pytest.mark.parametrize("name", list(Settings.model_fields))
def test_every_setting_is_documented_in_the_operations_guide(name: str) -> None:
    variable = environment_variable(name)
    assert f"| `{variable}` |" in _settings_section(), f"docs/operations.md's Settings table does not list {variable}"


def test_the_operations_guide_lists_no_setting_that_does_not_exist() -> None:
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", _settings_section(), flags=re.MULTILINE))
    assert documented == {environment_variable(name) for name in Settings.model_fields}


@pytest.mark.parametrize("name", list(Settings.model_fields))
def test_every_setting_has_a_type_a_default_and_a_description(name: str) -> None:
    field = Settings.model_fields[name]
    assert field.annotation is not None
    assert not field.is_required()
    assert field.description and len(field.description) > 20


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://paperlab@db/paperlab")
    monkeypatch.setenv("PAPERLAB_QUEUE_LIMIT", "7")
    monkeypatch.setenv("PAPERLAB_UNSAFE_NO_SANDBOX", "1")
    monkeypatch.setenv("PAPERLAB_VAR_DIR", str(tmp_path))
    settings = Settings(_env_file=None)
    assert settings.database_url == "postgresql+psycopg://paperlab@db/paperlab"
    assert settings.queue_limit == 7 and settings.unsafe_no_sandbox is True
    assert settings.var_dir == tmp_path


def test_the_default_database_lives_in_the_var_dir(tmp_path: Path) -> None:
    assert Settings(_env_file=None).database_url == "sqlite:///var/paperlab.db"
    settings = Settings(_env_file=None, var_dir=tmp_path)
    assert settings.database_url == f"sqlite:///{tmp_path}/paperlab.db"


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="grading_concurrency"):
        Settings(_env_file=None, grading_concurrency=0)
    with pytest.raises(ValueError, match="secret_key"):
        Settings(_env_file=None, secret_key="short")


def test_the_secret_key_is_generated_once_with_mode_600(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, var_dir=tmp_path / "var")
    first = resolve_secret_key(settings)
    path = tmp_path / "var" / "secret_key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) >= 32 and resolve_secret_key(settings) == first
    explicit = Settings(_env_file=None, var_dir=tmp_path, secret_key="x" * 40)
    assert resolve_secret_key(explicit) == "x" * 40


def test_importing_the_app_has_no_side_effects(tmp_path: Path) -> None:
    code = (
        "import app.main, pathlib, sys; "
        "assert not pathlib.Path('var').exists(), 'import created var/'; "
        "application = app.main.app; "
        "assert application.title == 'PaperLab'; "
        "assert not pathlib.Path('var').exists(), 'creating the app created var/'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, env={"PYTHONPATH": str(REPO_ROOT)})


def test_the_cli_has_a_serve_command(capsys: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module("app.__main__").main
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--host" in out and "--port" in out
