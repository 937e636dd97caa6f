"""`python -m app serve` refuses to start without the front-end bundle: a clone that skipped `npm run build`
served unstyled pages with no editor, and said so only in 404 lines of the log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("extra", [pytest.param([], id="serve"), pytest.param(["--author"], id="serve-author")])
def test_serve_without_the_bundle_refuses_to_start_and_says_how_to_build_it(tmp_path: Path, extra: list[str]) -> None:
    static = tmp_path / "static"
    static.mkdir()
    env = {**os.environ, "PAPERLAB_STATIC_DIR": str(static), "PAPERLAB_VAR_DIR": str(tmp_path),
           "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite"}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "app", "serve", "--port", "1", *extra], env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"{static / 'dist' / 'app.js'} is missing" in result.stderr
    assert "npm run build" in result.stderr
