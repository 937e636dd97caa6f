"""The template's wipe of /tmp between children (grader.sandboxed.wipe.empty_directory), on a directory of the test's:
what a submission can leave behind is removed, and nothing makes the wipe raise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.sandboxed import wipe


def _deep(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):  # relative to a descriptor, as a submission would: no path grows past PATH_MAX
        os.mkdir("a" * 200, dir_fd=fd)
        inner = os.open("a" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("leaf", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
    os.close(fd)


def test_a_chain_deeper_than_the_recursion_limit_and_path_max_is_removed(tmp_path: Path) -> None:
    _deep(tmp_path, 1200)  # 1200 names of 200 characters: a path of 240,000 characters
    assert wipe.empty_directory(str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


def test_directories_and_files_with_mode_000_are_removed(tmp_path: Path) -> None:
    inner = tmp_path / "locked" / "inner"
    inner.mkdir(parents=True)
    (inner / "file").write_text("x")
    (inner / "file").chmod(0)
    os.symlink("/", inner / "root")  # removed, never followed
    (tmp_path / "fifo").parent.mkdir(exist_ok=True)
    os.mkfifo(tmp_path / "fifo")
    inner.chmod(0)
    (tmp_path / "locked").chmod(0)
    assert wipe.empty_directory(str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


def test_a_directory_made_unreadable_gets_its_mode_back_first(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kept").mkdir()
    monkeypatch.setitem(wipe.WIPED_MODES, str(tmp_path), 0o700)
    tmp_path.chmod(0)
    assert wipe.empty_directory(str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


def test_a_missing_directory_is_empty_and_an_unremovable_one_is_not(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert wipe.empty_directory(str(tmp_path / "absent")) is True
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(os, "unlink", refuse)  # the os module the worker calls
    assert wipe.empty_directory(str(tmp_path)) is False
