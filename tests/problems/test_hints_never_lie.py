"""Hints never lie. A known mistake a failed check names (grader.diagnose) is one whose own result, recomputed
here independently of the diagnoser and its cache, equals what the submission returned on that very input and
differs from the reference's; and no problem's [[hints]] text is empty or repeated.

Kept mutants of every problem are graded as submissions: when two mistakes coincide on an input, both are named,
each reproduces that input's value, and the mistake of the mutant graded is always among them. Three of each
problem's described mutants are graded (those whose names have the smallest CRC-32): a fixed sample that changes
only with the catalogue, so that this file, which grades in the sandbox, keeps CI within its time; every problem
is tried, and selftest grades every mutant."""

from __future__ import annotations

import copy
import zlib
from collections import Counter
from typing import Any

import pytest
import torch

from grader import judge
from grader.calls import CallResult
from grader.diagnose import KnownMistake, naming, same, sentence
from grader.pool import WorkerPool
from grader.problems import Problem, discover

PROBLEMS, _ = discover()
BY_SLUG = {problem.slug: problem for problem in PROBLEMS}
SAMPLED = 3  # mutants a problem, those whose names have the smallest CRC-32
MUTANTS = [
    pytest.param(problem.slug, source.name, id=f"{problem.slug}/{source.name}")
    for problem in PROBLEMS
    for source in sorted((s for s in problem.mutant_sources() if s.description),
                         key=lambda s: zlib.crc32(s.name.encode()))[:SAMPLED]
]


def test_every_problem_has_mutants_in_the_sample() -> None:
    assert {case.values[0] for case in MUTANTS} == {problem.slug for problem in PROBLEMS if problem.mutant_sources()}


def recompute(module: Any, call: CallResult) -> Any:
    assert call.arguments is not None
    args, kwargs = call.arguments
    function = getattr(module, call.function, None)
    assert callable(function), f"{call.function} is not in {module.__name__}"
    with torch.no_grad():
        return function(*copy.deepcopy(args), **copy.deepcopy(kwargs))


@pytest.mark.parametrize("problem", [pytest.param(p, id=p.slug) for p in PROBLEMS])
def test_hints_are_neither_empty_nor_repeated(problem: Problem) -> None:
    texts = [" ".join(hint.text.split()) for hint in problem.hints]
    assert all(texts), f"{problem.slug} has an empty hint"
    repeated = [text for text, count in Counter(texts).items() if count > 1]
    assert repeated == [], f"{problem.slug} repeats hints: {repeated}"


def test_no_two_problems_share_a_hint() -> None:
    owners: dict[str, list[str]] = {}
    for problem in PROBLEMS:
        for hint in problem.hints:
            owners.setdefault(" ".join(hint.text.split()), []).append(problem.slug)
    shared = {text[:60]: slugs for text, slugs in owners.items() if len(slugs) > 1}
    assert shared == {}


@pytest.mark.slow  # every mutant of every problem graded: minutes
@pytest.mark.sandbox
# As in production, where a warning is printed and the call goes on: a mutant that warns (kl_div's 'mean'
# reduction does) must still reproduce its value here, not raise the warning as pytest's "error" filter would.
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("slug", "mutant"), MUTANTS)
def test_a_named_mistake_reproduces_what_the_submission_returned(
    slug: str, mutant: str, sandbox_pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem = BY_SLUG[slug]
    diagnoser = problem.diagnoser
    assert diagnoser is not None
    named: list[tuple[CallResult, list[KnownMistake]]] = []
    matches = diagnoser.matches

    def recording(call: CallResult) -> list[KnownMistake]:
        found = matches(call)
        if found:
            named.append((call, found))
        return found

    monkeypatch.setattr(diagnoser, "matches", recording)
    source = next(s for s in problem.mutant_sources() if s.name == mutant)
    report = judge.grade(problem, source.code, pool=sandbox_pool)
    own = next(m for m in diagnoser.mutants() if m.description == sentence(source.description))
    for call, found in named:
        for mistake in found:
            reproduced = recompute(mistake.module, call)
            assert same(reproduced, call.value), f"{call.call}: '{mistake.mistake}' does not reproduce the value"
        assert not same(recompute(problem.reference, call), call.value), f"{call.call}: the reference gives it too"
        # The graded mutant is the submission: whatever else this input cannot tell apart from it, its own
        # mistake is among those named, so the true cause is never left out.
        assert own.description in {m.description for m in found}, f"{call.call}: '{own.mistake}' is not named"
        text = naming(found)
        assert text is not None and any(text in check.message for check in report.checks), \
            f"the diagnosis '{text}' was made but no check shows it"
