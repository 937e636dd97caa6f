"""Mutants as diagnoses: a failing call whose value a known mistake reproduces names that mistake, in place of
the check's generic hint; no mistake is named for a value no mutant reproduces, or one the reference gives."""

from __future__ import annotations

import types

import pytest
import torch

from grader.calls import CallResult
from grader.diagnose import KnownMistake, fresh_copy, mistake_phrase, naming, same, sentence
from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import PROBLEMS_DIR, load_problem
from grader.touches import ANYTHING, Changes


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


def test_each_mutant_gets_a_copy_of_the_arguments_with_views_and_aliases_as_the_check_made_them() -> None:
    queue = torch.arange(12.0).reshape(4, 3)
    column_view = queue.t()[1:]  # a non-contiguous view of the same storage
    leaf = torch.ones(2, requires_grad=True)
    (args, kwargs) = fresh_copy(((queue, column_view, 3, "x"), {"same": queue, "leaf": leaf}))
    copied, view = args[0], args[1]
    assert copied.untyped_storage().data_ptr() != queue.untyped_storage().data_ptr()
    assert view.untyped_storage().data_ptr() == copied.untyped_storage().data_ptr()  # still a view of it
    assert (view.stride(), view.storage_offset(), view.is_contiguous()) == (column_view.stride(), 1, False)
    assert kwargs["same"].untyped_storage().data_ptr() == copied.untyped_storage().data_ptr()
    assert kwargs["leaf"].requires_grad and kwargs["leaf"].is_leaf
    copied.zero_()  # a mutant writing into its arguments
    assert view.abs().sum() == 0 and queue.sum() == 66  # reaches its own copies, never the check's tensors
    assert args[2:] == (3, "x")


@pytest.mark.parametrize(
    "function, mutant, tried",
    [
        pytest.param("moco_loss", "temperature_multiplies.py", True, id="a-loss-mutant-for-the-loss"),
        pytest.param("momentum_update", "temperature_multiplies.py", False, id="a-loss-mutant-for-the-update"),
        pytest.param("momentum_update", "ema_weights_swapped.py", True, id="an-update-mutant-for-the-update"),
        pytest.param("enqueue", "ema_weights_swapped.py", False, id="an-update-mutant-for-the-queue"),
    ],
)
def test_only_the_mutants_that_change_the_failing_function_are_run(function: str, mutant: str, tried: bool) -> None:
    problem = load_problem(PROBLEMS_DIR / "moco")
    assert problem.diagnoser is not None
    names = [s.name for s in problem.mutant_sources() if s.description]
    suspects = {names[index] for index in problem.diagnoser.suspects(function)}
    assert (mutant in suspects) is tried


def _mistake(text: str) -> KnownMistake:
    return KnownMistake(sentence(text), types.ModuleType("m"), Changes(frozenset({ANYTHING})), mistake_phrase(text))


@pytest.mark.parametrize(
    ("descriptions", "expected"),
    [
        pytest.param([], None, id="none"),
        pytest.param(["This is what you get when T multiplies."],
                     "This is what you get when T multiplies.", id="one-says-its-own-sentence"),
        pytest.param(["This is what you get when T multiplies.", "The KL is a mean."],
                     "Your result matches 2 known mistakes, which this input cannot tell apart: (1) T multiplies; "
                     "(2) the KL is a mean.", id="two-are-both-named"),
        pytest.param(["Alpha.", "Beta.", "Gamma.", "Delta.", "Epsilon."],
                     "Your result matches 5 known mistakes, which this input cannot tell apart: (1) alpha; (2) beta; "
                     "(3) gamma; and 2 more.", id="five-name-three-and-count-the-rest"),
        pytest.param(["PyTorch's min is used.", "KL is a mean."],
                     "Your result matches 2 known mistakes, which this input cannot tell apart: (1) PyTorch's min is "
                     "used; (2) KL is a mean.", id="names-keep-their-case"),
    ],
)
def test_every_mistake_that_fits_is_named(descriptions: list[str], expected: str | None) -> None:
    assert naming([_mistake(text) for text in descriptions]) == expected
