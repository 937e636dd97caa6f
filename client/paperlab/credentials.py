"""Where the command keeps the site and the token `paperlab login` was given: one JSON file, readable by its
owner alone (`$PAPERLAB_CONFIG_DIR`, else `$XDG_CONFIG_HOME/paperlab`, else `~/.config/paperlab`). The
environment overrides it: PAPERLAB_URL and PAPERLAB_TOKEN together (for a notebook service or CI)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paperlab.errors import NotLoggedIn

FILE_NAME = "credentials.json"


@dataclass(frozen=True)
class Credentials:
    url: str
    token: str


def config_dir(environ: Mapping[str, str] = os.environ) -> Path:
    if environ.get("PAPERLAB_CONFIG_DIR"):
        return Path(environ["PAPERLAB_CONFIG_DIR"])
    base = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "paperlab"


def credentials_path(environ: Mapping[str, str] = os.environ) -> Path:
    return config_dir(environ) / FILE_NAME


def normalise_url(url: str) -> str:
    """`localhost:8000/` -> `http://localhost:8000`: the site's root, as every API path is joined to it."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url


def load_credentials(environ: Mapping[str, str] = os.environ) -> Credentials:
    if environ.get("PAPERLAB_TOKEN"):
        if not environ.get("PAPERLAB_URL"):
            raise NotLoggedIn("PAPERLAB_TOKEN is set but PAPERLAB_URL is not: set both, or run `paperlab login URL`.")
        return Credentials(url=normalise_url(environ["PAPERLAB_URL"]), token=environ["PAPERLAB_TOKEN"].strip())
    path = credentials_path(environ)
    try:
        stored = json.loads(path.read_text())
    except FileNotFoundError:
        raise NotLoggedIn(
            "You are not logged in. Make an API token on your PaperLab site's /continue page (\"Solve from your "
            "editor or notebook\"), then run `paperlab login URL` and paste it."
        ) from None
    except (OSError, ValueError) as exc:
        raise NotLoggedIn(f"{path} cannot be read ({exc}); run `paperlab login URL` again.") from None
    if not (isinstance(stored, dict) and isinstance(stored.get("url"), str) and isinstance(stored.get("token"), str)):
        raise NotLoggedIn(f"{path} is not what `paperlab login` writes; run `paperlab login URL` again.")
    return Credentials(url=stored["url"], token=stored["token"])


def save_credentials(credentials: Credentials, environ: Mapping[str, str] = os.environ) -> Path:
    """Written whole, mode 600 from the start (never readable by others, not even for a moment)."""
    path = credentials_path(environ)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_name(f".{FILE_NAME}.{os.getpid()}")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump({"url": credentials.url, "token": credentials.token}, file)
        file.write("\n")
    os.replace(partial, path)
    return path


def forget_credentials(environ: Mapping[str, str] = os.environ) -> bool:
    """Deletes the stored token; False when there was none."""
    try:
        credentials_path(environ).unlink()
    except FileNotFoundError:
        return False
    return True
