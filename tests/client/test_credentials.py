"""Where `paperlab login` keeps the site and the token: a file its owner alone can read, the environment first."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from paperlab.credentials import (
    Credentials,
    config_dir,
    forget_credentials,
    load_credentials,
    normalise_url,
    save_credentials,
)
from paperlab.errors import NotLoggedIn

TOKEN = "plt_" + "t" * 43


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    return {"PAPERLAB_CONFIG_DIR": str(tmp_path / "config")}


def test_saved_credentials_are_read_back_from_a_file_only_its_owner_can_read(environ: dict[str, str]) -> None:
    path = save_credentials(Credentials(url="http://lab.example:8000", token=TOKEN), environ)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_credentials(environ) == Credentials(url="http://lab.example:8000", token=TOKEN)
    assert not list(path.parent.glob(".credentials.json.*"))  # no partial file left beside it


def test_the_environment_overrides_the_file(environ: dict[str, str]) -> None:
    save_credentials(Credentials(url="http://file.example", token=TOKEN), environ)
    override = {**environ, "PAPERLAB_URL": "lab.example:9000/", "PAPERLAB_TOKEN": " plt_env \n"}
    assert load_credentials(override) == Credentials(url="http://lab.example:9000", token="plt_env")


def test_a_token_without_a_site_in_the_environment_says_so(environ: dict[str, str]) -> None:
    with pytest.raises(NotLoggedIn, match="PAPERLAB_URL is not"):
        load_credentials({**environ, "PAPERLAB_TOKEN": TOKEN})


@pytest.mark.parametrize(("content", "says"), [
    pytest.param(None, "You are not logged in", id="no-file"),
    pytest.param("{not json", "cannot be read", id="not-json"),
    pytest.param(json.dumps({"url": "http://x"}), "is not what `paperlab login` writes", id="no-token"),
])  # fmt: skip
def test_missing_or_damaged_credentials_say_to_log_in(environ: dict[str, str], content: str | None,
                                                      says: str) -> None:  # fmt: skip
    if content is not None:
        path = Path(environ["PAPERLAB_CONFIG_DIR"]) / "credentials.json"
        path.parent.mkdir(parents=True)
        path.write_text(content)
    with pytest.raises(NotLoggedIn, match=says) as raised:
        load_credentials(environ)
    assert "paperlab login" in raised.value.message


def test_forgetting_deletes_the_token(environ: dict[str, str]) -> None:
    save_credentials(Credentials(url="http://x", token=TOKEN), environ)
    assert forget_credentials(environ) is True
    assert forget_credentials(environ) is False
    with pytest.raises(NotLoggedIn):
        load_credentials(environ)


@pytest.mark.parametrize(("environ", "expected"), [
    pytest.param({"PAPERLAB_CONFIG_DIR": "/c"}, Path("/c"), id="explicit"),
    pytest.param({"XDG_CONFIG_HOME": "/x"}, Path("/x/paperlab"), id="xdg"),
    pytest.param({}, Path.home() / ".config" / "paperlab", id="home"),
])  # fmt: skip
def test_the_config_folder(environ: dict[str, str], expected: Path) -> None:
    assert config_dir(environ) == expected


@pytest.mark.parametrize(("given", "url"), [
    ("localhost:8000", "http://localhost:8000"),
    ("https://lab.example.edu/", "https://lab.example.edu"),
    ("  http://10.0.0.2:8000//  ", "http://10.0.0.2:8000"),
])  # fmt: skip
def test_a_sites_address_is_normalised_to_its_root(given: str, url: str) -> None:
    assert normalise_url(given) == url
