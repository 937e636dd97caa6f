"""Mutants as diagnoses: a failing call whose value a known mistake reproduces names that mistake, in place of
the check's generic hint; no mistake is named for a value no mutant reproduces, or one the reference gives."""

from __future__ import annotations

import pytest
import torch

from grader.calls import CallResult
from grader.diagnose import same
from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import PROBLEMS_DIR, load_problem


@pytest.mark.parametrize(
    "a, b, equal",
    [
        pytest.param(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]), True, id="within-float32-tolerance"),
        pytest.param(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), False, id="values-differ"),
        pytest.param(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), False, id="dtype-differs"),
        pytest.param(torch.tensor([1.0]), torch.tensor([[1.0]]), False, id="shape-differs"),
        pytest.param((torch.ones(2), 3), (torch.ones(2), 3), True, id="tuple"),
        pytest.param((torch.ones(2), 3), [torch.ones(2), 3], False, id="tuple-is-not-list"),
        pytest.param(3, 3.0, False, id="int-is-not-float"),
        pytest.param(float("nan"), float("nan"), True, id="nan-matches-nan"),
        pytest.param(torch.ones(2), 2.0, False, id="tensor-is-not-number"),
    ],
)
def test_same_is_equal_within_the_dtypes_tolerance(a: object, b: object, equal: bool) -> None:
    assert same(a, b) is equal


def test_no_diagnosis_without_the_calls_input() -> None:
    problem = load_problem(PROBLEMS_DIR / "simclr")
    assert problem.diagnoser is not None
    assert problem.diagnoser.diagnose(CallResult("nt_xent_loss", "nt_xent_loss()", value=torch.tensor(1.0))) is None


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "slug, mutant, expected",
    [
        pytest.param("simclr", "mean_over_n.py",
                     "This is what you get when the sum over the 2N anchors is divided by N instead of 2N.",
                     id="simclr-patch"),
        pytest.param("moco", "temperature_multiplies.py",
                     "Your result matches a known mistake: multiplies the logits by the temperature instead of "
                     "dividing.", id="moco-whole-file"),
    ],
)
def test_a_known_mistake_is_named_in_place_of_the_generic_hint(
    sandbox_pool: WorkerPool, slug: str, mutant: str, expected: str
) -> None:
    problem = load_problem(PROBLEMS_DIR / slug)
    source = next(s for s in problem.mutant_sources() if s.name == mutant)
    report = grade(problem, source.code, pool=sandbox_pool)
    named = [check.message for check in report.checks if check.status == "failed" and expected in check.message]
    assert named, [check.message for check in report.checks if check.status == "failed"]
    assert all(message.endswith(expected) for message in named)  # in place of the check's hint, not beside it
    # The mistake also travels as a field of its own, which the instructor dashboard counts.
    diagnosed = [check for check in report.checks if check.diagnosis is not None]
    assert diagnosed and all(check.diagnosis == expected for check in diagnosed)


@pytest.mark.sandbox
def test_the_reference_gets_no_diagnosis_on_a_check_it_passes(sandbox_pool: WorkerPool) -> None:
    problem = load_problem(PROBLEMS_DIR / "simclr")
    report = grade(problem, problem.reference_source(), pool=sandbox_pool)
    assert report.solved and not any("known mistake" in check.message for check in report.checks)
