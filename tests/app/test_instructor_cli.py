"""`python -m app instructor add|list|remove`, as an operator runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def cli(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAPERLAB_") and key != "DATABASE_URL"}
    env |= {"PAPERLAB_VAR_DIR": str(tmp_path / "var"), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "app", "instructor", *args], input=stdin, capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120, check=False)


def test_add_list_and_remove_an_instructor(tmp_path: Path) -> None:
    added = cli(tmp_path, "add", "Ada@Example.edu", "--password-stdin", stdin="a long enough password\n")
    assert added.returncode == 0, added.stderr
    listed = cli(tmp_path, "list")
    assert listed.stdout.split("\t")[0] == "ada@example.edu"
    assert cli(tmp_path, "remove", "ada@example.edu").returncode == 0
    assert cli(tmp_path, "list").stdout == ""


def test_the_password_is_stored_only_as_an_argon2id_hash(tmp_path: Path) -> None:
    cli(tmp_path, "add", "ada@example.edu", "--password-stdin", stdin="a long enough password\n")
    database = (tmp_path / "var" / "paperlab.db").read_bytes()
    assert b"a long enough password" not in database
    assert b"$argon2id$" in database


def test_a_short_password_and_a_second_account_with_one_email_are_refused(tmp_path: Path) -> None:
    short = cli(tmp_path, "add", "ada@example.edu", "--password-stdin", stdin="short\n")
    assert short.returncode == 2 and "at least 12 characters" in short.stderr
    cli(tmp_path, "add", "ada@example.edu", "--password-stdin", stdin="a long enough password\n")
    again = cli(tmp_path, "add", "ADA@example.edu", "--password-stdin", stdin="another long password\n")
    assert again.returncode == 2 and "already an instructor" in again.stderr


def test_removing_an_unknown_instructor_says_so(tmp_path: Path) -> None:
    removed = cli(tmp_path, "remove", "nobody@example.edu")
    assert removed.returncode == 2 and "no instructor 'nobody@example.edu'" in removed.stderr
