"""tests/mutation/score.py: how mutmut's exit codes become the per-module table and its verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutation.score import (
    EQUIVALENTS,
    Equivalent,
    load_equivalents,
    moved_equivalents,
    score,
    stale_equivalents,
    table,
)

NAME = "grader.describe.x__nested__mutmut_{}"


def entry(number: int, **changes: object) -> Equivalent:
    fields: dict[str, object] = {"mutant": NAME.format(number), "line": 1,
                                 "original": '"""Compact, learner-readable descriptions of values: '
                                             "'float32[2, 3] [[1.0, 0.0, 0.0], ...]'.\"\"\"",
                                 "mutation": "x", "why": "test"}
    return Equivalent.model_validate(fields | changes)


def test_exit_codes_are_sorted_into_killed_timeout_equivalent_survived_and_not_run() -> None:
    codes = {NAME.format(1): 1, NAME.format(2): 3, NAME.format(3): 36, NAME.format(4): 0, NAME.format(5): 0,
             NAME.format(6): 33, NAME.format(7): None, NAME.format(8): -11}
    got = score("grader/describe.py", codes, {NAME.format(4): entry(4)})
    assert (got.killed, got.timeout, got.equivalent, got.not_run) == (2, 1, 1, 1)
    assert got.survived == [NAME.format(5), NAME.format(6), NAME.format(8)]  # no tests and segfaults count too
    assert got.judged == 7
    assert got.percent == pytest.approx(300 / 7)


def test_a_listed_equivalent_that_timed_out_is_still_an_equivalent_not_a_kill() -> None:
    got = score("m", {NAME.format(1): 36}, {NAME.format(1): entry(1)})
    assert (got.killed, got.timeout, got.equivalent) == (0, 0, 1)
    assert stale_equivalents({NAME.format(1): entry(1)}, {NAME.format(1): 36}, {}) == []


def test_an_equivalent_does_not_count_as_killed() -> None:
    got = score("m", {NAME.format(1): 1, NAME.format(2): 0}, {NAME.format(2): entry(2)})
    assert got.percent == 50.0
    assert "50.0%" in table([got])


def test_a_listed_equivalent_that_a_test_kills_or_that_moved_is_stale() -> None:
    killed = entry(1)
    moved = entry(2, original="a line that is not in the module")
    gone = entry(3)
    other = entry(4, mutation="something else")
    codes: dict[str, int | None] = {killed.mutant: 1, moved.mutant: 0, other.mutant: 0}
    diffs = {other.mutant: f"--- a\n+++ b\n-{other.original}\n+return None"}
    problems = stale_equivalents({e.mutant: e for e in (killed, moved, gone, other)}, codes, diffs)
    assert [p.split(":")[0] for p in problems] == [killed.mutant, moved.mutant, gone.mutant, other.mutant]
    assert "a test kills it now" in problems[0]
    assert "grader/describe.py no longer has the line" in problems[1]
    assert "no such mutant" in problems[2]
    assert "its diff is no longer" in problems[3]


def test_an_entry_whose_line_moved_is_noted_not_failed() -> None:
    moved = entry(1, line=2, mutation="return None")
    diffs = {moved.mutant: f"--- a\n+++ b\n-{moved.original}\n+return None"}
    assert stale_equivalents({moved.mutant: moved}, {moved.mutant: 0}, diffs) == []
    (note,) = moved_equivalents({moved.mutant: moved})
    assert "is no longer line 2 of grader/describe.py (now 1)" in note


def test_a_true_equivalent_is_not_stale() -> None:
    true = entry(1, mutation="return None")
    diffs = {true.mutant: f"--- a\n+++ b\n-{true.original}\n+return None"}
    assert stale_equivalents({true.mutant: true}, {true.mutant: 0}, diffs) == []


def test_the_reviewed_equivalents_file_loads_and_names_each_mutant_once(tmp_path: Path) -> None:
    load_equivalents(EQUIVALENTS)
    twice = tmp_path / "twice.toml"
    twice.write_text('[[equivalent]]\nmutant = "a.x_f__mutmut_1"\nline = 1\noriginal = "a"\nmutation = "b"\n'
                     'why = "c"\n' * 2)
    with pytest.raises(SystemExit, match="listed twice"):
        load_equivalents(twice)
