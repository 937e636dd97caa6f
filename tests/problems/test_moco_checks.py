"""The MoCo checks that cover the contract's less travelled clauses, graded through the sandbox: the reference
passes them, and each new mutant is failed by its check with a message that names the mistake."""

import dataclasses

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem

PROBLEM = load_problem("moco")
CLAUSE_CHECKS = (
    "moco_loss.extreme_temperatures",
    "moco_loss.edge_case_gradients",
    "moco_loss.valid_extremes",
    "momentum_update.endpoints",
    "momentum_update.large_entries",
    "enqueue.half_precision_edge_rows",
)


def only(*ids: str) -> Problem:
    return dataclasses.replace(PROBLEM, checks=tuple(c for c in PROBLEM.checks if c.id in ids))


def source(folder: str, name: str) -> str:
    return PROBLEM.folder.joinpath(folder, f"{name}.py").read_text()


def test_the_reference_passes_every_clause_check(sandbox_pool: WorkerPool) -> None:
    report = grade(only(*CLAUSE_CHECKS), PROBLEM.folder.joinpath("reference.py").read_text(), pool=sandbox_pool)
    assert sorted(c.id for c in report.checks) == sorted(CLAUSE_CHECKS)
    assert [(c.id, c.message) for c in report.checks if c.status != "passed"] == []


@pytest.mark.parametrize(
    ("mutant", "check_id", "says"),
    [
        pytest.param("device_not_checked", "contract.moco_loss.refusals",
                     "because tensors on cpu, meta, but it raised RuntimeError", id="devices"),
        pytest.param("ema_difference_form", "momentum_update.endpoints",
                     "expected exactly equal values", id="endpoints"),
        pytest.param("enqueue_empty_keeps_grad", "contract.enqueue.edges",
                     "[generic input: B = 0]: the result[0] requires grad", id="empty-batch-grad"),
        pytest.param("enqueue_oversized_keeps_grad", "contract.enqueue.edges",
                     "[generic input: K = 1]: the result[0] requires grad", id="oversized-batch-grad"),
        pytest.param("enqueue_half_floor_underflows", "enqueue.half_precision_edge_rows",
                     "the floor 1e-12 itself rounds to 0", id="half-floor"),
        pytest.param("logsumexp_shifted_by_positive", "moco_loss.extreme_temperatures",
                     "the positive opposite, negatives aligned", id="shifted-logsumexp"),
        pytest.param("norm_by_sqrt_of_squares", "moco_loss.edge_case_gradients",
                     "(a zero query row), query.grad has nan or inf entries", id="sqrt-norm-gradient"),
    ],
)
def test_each_new_mutant_fails_its_check_with_a_message_naming_the_mistake(
    sandbox_pool: WorkerPool, mutant: str, check_id: str, says: str
) -> None:
    code = next(m.code for m in PROBLEM.mutant_sources() if m.name == f"{mutant}.py")  # a patch, materialised
    report = grade(only(check_id), code, pool=sandbox_pool)
    (result,) = report.checks
    assert result.status == "failed", result.message
    assert says in result.message


@pytest.mark.parametrize("variant", ["add_with_alpha", "plain_loops", "positive_placed_last"])
def test_variants_written_differently_pass_the_clause_checks(sandbox_pool: WorkerPool, variant: str) -> None:
    report = grade(only(*CLAUSE_CHECKS), source("variants", variant), pool=sandbox_pool)
    assert [(c.id, c.message) for c in report.checks if c.status != "passed"] == []
