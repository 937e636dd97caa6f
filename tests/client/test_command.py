"""The `paperlab` command's own behaviour, before any server is asked: usage errors and their exit statuses,
and that it works without torch or the server's code (a learner's laptop, Colab)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from paperlab.cli import main
from tests.client.client_support import NO_SERVER_IMPORTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERLAB_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("PAPERLAB_URL", raising=False)
    monkeypatch.delenv("PAPERLAB_TOKEN", raising=False)


def test_without_a_login_the_command_says_how_to_log_in(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 3
    assert "You are not logged in" in capsys.readouterr().err


def test_a_file_that_is_not_there_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["test", str(tmp_path / "nope.py"), "--problem", "moco"]) == 2
    assert "There is no file" in capsys.readouterr().err


def test_login_takes_no_token_on_the_command_line() -> None:
    with pytest.raises(SystemExit):
        main(["login", "http://lab.example", "plt_secret_in_shell_history"])


def test_the_client_imports_neither_torch_nor_the_server(tmp_path: Path) -> None:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(NO_SERVER_IMPORTS)
    modules = "paperlab.cli, paperlab.api, paperlab.terminal, paperlab.workspace, paperlab.notebook, paperlab.events"
    done = subprocess.run([sys.executable, "-c", f"import {modules}; import paperlab.cli as c; c.main(['--help'])"],
                          env={"PYTHONPATH": str(guard), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "paperlab login" not in done.stderr and "usage: paperlab" in done.stdout


@pytest.mark.slow
def test_the_client_builds_alone_and_depends_on_httpx_only(tmp_path: Path) -> None:
    """client/ is its own distribution: a learner installs the command without torch or the server."""
    source = tmp_path / "client"  # setuptools builds in the source folder: a copy keeps the checkout clean
    shutil.copytree(ROOT / "client", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(tmp_path / "dist"), str(source)], check=True, timeout=300)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("paperlab_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = Parser().parsestr(archive.read(next(n for n in names if n.endswith("METADATA"))).decode())
        entry_points = archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert sorted({name.split("/")[0] for name in names if not name.startswith("paperlab_client-")}) == ["paperlab"]
    requirements = metadata.get_all("Requires-Dist")
    assert requirements is not None
    assert [r for r in requirements if "extra ==" not in r] == ["httpx<1,>=0.27"]
    assert all(r.startswith("ipython") for r in requirements if "extra ==" in r)
    assert "paperlab = paperlab.cli:main" in entry_points
