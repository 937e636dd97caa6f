"""A Celery grading worker picks up problem folders changed or added since it started, as the web server does
(PAPERLAB_PROBLEMS_RELOAD_S > 0): just before grading, it looks again at that submission's folder, so it never
grades with an older battery than the statement the web shows. A folder that stops loading keeps its last good
version; with reload off the worker keeps what it loaded. Tested at the worker's problem lookup, without Celery."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.catalog import ProblemCatalog, load_catalog
from app.grading.celery_consumer import current_problems
from grader.scaffold import create_problem

EXTRA_CHECK = '''

@check("normalize_rows.added_later", "A check the author added while the worker ran",
       clauses=["normalize_rows.unit_rows"])
def added_later(sub, ref):
    expect_close(sub.normalize_rows(torch.tensor([[0.0, 2.0]])), torch.tensor([[0.0, 1.0]]))
'''


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    problems_dir = tmp_path / "problems"
    create_problem("adder", problems_dir)
    create_problem("other", problems_dir)
    return problems_dir


@pytest.fixture
def catalog(problems: Path) -> ProblemCatalog:
    return load_catalog(problems)  # what the worker loaded when it started; it does not watch the folder


def save(path: Path, text: str) -> None:
    """Write and move the mtime on, so that a save within the same clock tick is still a change."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def check_ids(catalog: ProblemCatalog, slug: str) -> set[str]:
    return {check.id for check in catalog[slug].checks}


def test_a_check_added_after_start_is_in_the_battery_it_grades_with(problems: Path, catalog: ProblemCatalog) -> None:
    checks = problems / "adder" / "checks.py"
    save(checks, checks.read_text() + EXTRA_CHECK)
    assert "normalize_rows.added_later" in check_ids(current_problems(catalog, "adder", reload=True), "adder")


def test_a_problem_added_after_start_is_graded(problems: Path, catalog: ProblemCatalog) -> None:
    create_problem("newcomer", problems)
    assert "newcomer" not in catalog
    assert "newcomer" in current_problems(catalog, "newcomer", reload=True)


def test_a_folder_that_stops_loading_keeps_its_last_good_version(problems: Path, catalog: ProblemCatalog) -> None:
    good = catalog["adder"]
    checks = problems / "adder" / "checks.py"
    save(checks, checks.read_text() + "\n\nraise RuntimeError('half-written check')\n")
    current = current_problems(catalog, "adder", reload=True)
    assert current["adder"] is good
    assert current.invalid["adder"].serving_previous


def test_a_removed_folder_is_no_longer_graded(problems: Path, catalog: ProblemCatalog) -> None:
    for path in sorted((problems / "other").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (problems / "other").rmdir()
    assert "other" not in current_problems(catalog, "other", reload=True)


def test_with_reload_off_the_worker_keeps_what_it_loaded(problems: Path, catalog: ProblemCatalog) -> None:
    checks = problems / "adder" / "checks.py"
    save(checks, checks.read_text() + EXTRA_CHECK)
    assert "normalize_rows.added_later" not in check_ids(current_problems(catalog, "adder", reload=False), "adder")


def test_it_looks_only_at_the_folder_it_is_about_to_grade(problems: Path, catalog: ProblemCatalog) -> None:
    other = catalog["other"]
    checks = problems / "other" / "checks.py"
    save(checks, checks.read_text() + EXTRA_CHECK)
    current_problems(catalog, "adder", reload=True)
    assert catalog["other"] is other  # looked at when a submission for it comes (or by a full refresh)
    assert catalog.refresh() == ["other"]


@pytest.mark.parametrize("slug", ["../adder", ".hidden", "_draft", "missing"])
def test_a_slug_that_names_no_problem_folder_loads_nothing(problems: Path, catalog: ProblemCatalog,
                                                           slug: str) -> None:
    (problems / "_draft").mkdir()
    assert current_problems(catalog, slug, reload=True).refresh(only=slug) == []
    assert slug not in catalog
