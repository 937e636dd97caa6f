"""Live reload of the problem catalogue: an author's edit under the problems folder is served within a few
seconds without a restart; a folder that stops loading keeps its last good version and is listed with the file
and line of its error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from app.catalog import ProblemCatalog, folder_signature, invalid_problem, load_catalog
from grader.scaffold import create_problem
from tests import waiting
from tests.app.conftest import Server

RELOAD_DEADLINE_S = 5.0  # what docs/authoring.md promises an author
eventually = partial(waiting.eventually, within_s=RELOAD_DEADLINE_S)


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    problems_dir = tmp_path / "problems"
    create_problem("adder", problems_dir)
    return problems_dir


@pytest.fixture
def watched(problems: Path) -> Iterator[ProblemCatalog]:
    catalog = load_catalog(problems)
    catalog.start_watching(0.1)
    yield catalog
    catalog.stop_watching()


def rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_an_edited_statement_is_served_without_a_restart(problems: Path, watched: ProblemCatalog) -> None:
    statement = problems / "adder" / "statement.md"
    statement.write_text(statement.read_text() + "\nA sentence the author just added.\n")
    eventually(lambda: "A sentence the author just added." in watched.entry("adder").statement_html,
               "the edited statement served")


def test_an_edited_problem_toml_is_served_without_a_restart(problems: Path, watched: ProblemCatalog) -> None:
    toml = problems / "adder" / "problem.toml"
    title = watched.entry("adder").public()["title"]
    rewrite(toml, f'title = "{title}"', 'title = "Adder, retitled"')
    eventually(lambda: watched.entry("adder").public()["title"] == "Adder, retitled", "the new title served")


def test_an_added_folder_appears_and_a_removed_one_disappears(problems: Path, watched: ProblemCatalog) -> None:
    create_problem("second", problems)
    eventually(lambda: "second" in watched, "the new folder served")
    for path in sorted((problems / "second").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (problems / "second").rmdir()
    eventually(lambda: "second" not in watched, "the removed folder withdrawn")


def test_a_folder_that_stops_loading_keeps_its_last_good_version_and_is_listed(
    problems: Path, watched: ProblemCatalog
) -> None:
    checks = problems / "adder" / "checks.py"
    good = watched["adder"]
    checks.write_text(checks.read_text() + "\n\nraise RuntimeError('half-written check')\n")
    eventually(lambda: "adder" in watched.invalid, "the broken folder listed as invalid")
    assert watched["adder"] is good
    invalid = watched.invalid["adder"]
    line = len(checks.read_text().splitlines())
    assert (invalid.file, invalid.line, invalid.serving_previous) == ("adder/checks.py", line, True)
    assert invalid.message == f"adder/checks.py:{line}: failed to import: RuntimeError: half-written check"
    checks.write_text(checks.read_text().replace("raise RuntimeError('half-written check')", ""))
    eventually(lambda: "adder" not in watched.invalid, "the mended folder served again")
    assert watched["adder"] is not good


@pytest.mark.parametrize(("make", "counted"), [
    (lambda root: (root / "checks.py").write_text("x"), True),
    (lambda root: (root / "mutants" / "deep" / "m.py").write_text("x"), True),
    (lambda root: (root / ".checks.py.swp").write_text("x"), False),  # an editor's dot-file
    (lambda root: (root / "checks.py~").write_text("x"), False),
    (lambda root: (root / "checks.pyc").write_text("x"), False),
    (lambda root: (root / "__pycache__" / "checks.cpython-311.pyc").write_text("x"), False),
    (lambda root: (root / ".git" / "HEAD").write_text("x"), False),
    (lambda root: (root / "elsewhere").symlink_to(root.parent / "outside"), False),  # a link to a folder: not walked
    (lambda root: (root / "dangling.py").symlink_to(root / "missing.py"), False),
])
def test_a_signature_counts_the_files_an_author_edits_and_nothing_else(
    tmp_path: Path, make: Callable[[Path], object], counted: bool
) -> None:
    root = tmp_path / "folder"
    for folder in (root / "mutants" / "deep", root / "__pycache__", root / ".git", tmp_path / "outside"):
        folder.mkdir(parents=True)
    (tmp_path / "outside" / "big.bin").write_text("x")
    before = folder_signature(root)
    make(root)
    assert (folder_signature(root) != before) is counted


def test_a_signature_names_files_relative_to_the_folder_with_mtime_and_size(tmp_path: Path) -> None:
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "a.py").write_text("abc")
    ((name, mtime_ns, size),) = folder_signature(tmp_path)
    assert (name, mtime_ns, size) == ("mutants/a.py", (tmp_path / "mutants" / "a.py").stat().st_mtime_ns, 3)


def test_refresh_reloads_only_the_folders_that_changed(problems: Path) -> None:
    create_problem("second", problems)
    catalog = load_catalog(problems)
    assert catalog.refresh() == []
    before = catalog["second"]
    (problems / "adder" / "notes.md").write_text("New notes.\n")
    assert catalog.refresh() == ["adder"]
    assert catalog["second"] is before
    assert catalog["adder"].notes == "New notes.\n"


@pytest.mark.parametrize(
    ("error", "file", "line"),
    [
        ("{root}/x/problem.toml:5: difficulty: Input should be 'easy'", "x/problem.toml", 5),
        ("{root}/x/problem.toml: missing; every problem folder needs a problem.toml", "x/problem.toml", None),
        ("no problem folder 'x'", None, None),
    ],
)
def test_a_loader_error_is_split_into_file_line_and_message(
    tmp_path: Path, error: str, file: str | None, line: int | None
) -> None:
    invalid = invalid_problem("x", error.format(root=tmp_path.resolve()), tmp_path)
    assert (invalid.file, invalid.line) == (file, line)
    assert str(tmp_path) not in invalid.message  # the server's own paths stay private


def test_the_running_server_serves_an_edit_and_lists_a_broken_folder_in_healthz(
    make_server: Callable[..., Server], problems: Path
) -> None:
    server = make_server(problems_dir=problems, problems_reload_s=0.2)
    statement = problems / "adder" / "statement.md"
    statement.write_text(statement.read_text() + "\nServed live.\n")
    eventually(lambda: "Served live." in server.client.get("/problems/adder").text, "the edit on the page")

    broken = problems / "broken"
    create_problem("broken", problems)
    rewrite(broken / "problem.toml", 'difficulty = "easy"', 'difficulty = "trivial"')
    eventually(lambda: bool(server.client.get("/healthz").json()["invalid_problems"]), "the invalid folder on /healthz")
    (listed,) = server.client.get("/healthz").json()["invalid_problems"]
    line = next(n for n, text in enumerate((broken / "problem.toml").read_text().splitlines(), 1) if "trivial" in text)
    assert listed["slug"] == "broken" and listed["file"] == "broken/problem.toml" and listed["line"] == line
    assert listed["message"].startswith(f"broken/problem.toml:{line}: difficulty: Input should be")
    assert listed["serving_previous"] is False
    assert server.client.get("/problems/broken").status_code == 404


def test_author_mode_shows_a_banner_with_untested_clauses_and_folders_that_do_not_load(
    make_server: Callable[..., Server], problems: Path
) -> None:
    with (problems / "adder" / "problem.toml").open("a") as toml:
        toml.write('\n[[clauses]]\nid = "normalize_rows.promise"\ntext = "a promise no check tests"\n')
    create_problem("broken", problems)
    (problems / "broken" / "checks.py").write_text("import torch\n\nraise RuntimeError('not yet')\n")
    server = make_server(problems_dir=problems, author_mode=True, problems_reload_s=0)
    page = server.client.get("/problems/adder").text
    assert "Author mode." in page
    assert "adder: clauses no required check tests: normalize_rows.promise" in page
    assert "broken/checks.py:3: broken/checks.py:3: failed to import" not in page  # the place is said once
    assert "broken/checks.py:3: failed to import: RuntimeError: not yet (not served)" in page
    assert "normalize_rows.promise" not in server.client.get("/").text  # clauses only on the problem's pages


def test_without_author_mode_learners_see_no_banner(make_server: Callable[..., Server], problems: Path) -> None:
    create_problem("broken", problems)
    (problems / "broken" / "checks.py").write_text("raise RuntimeError('not yet')\n")
    server = make_server(problems_dir=problems, problems_reload_s=0)
    assert "Author mode." not in server.client.get("/problems/adder").text
