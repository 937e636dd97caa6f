"""Gradients for results of any shape: vector-Jacobian products with a cotangent the check gives or the worker
picks (and sends back), central differences with the same cotangent, and a clear message when no gradient
can flow (a result rebuilt from numbers, a backward() that raises)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem

pytestmark = pytest.mark.sandbox

CHECKS = '''
import torch

from grader.checks import central_differences, check, expect_close, expect_grad_close


def inputs():
    generator = torch.Generator().manual_seed(5)
    return torch.randn(2, 3, 4, 5, generator=generator, dtype=torch.float64)


@check("heads.vjp", "The gradient of a [B, H, L, D] result, with the worker's own cotangent")
def heads_vjp(sub, ref):
    x = inputs()
    result = sub.heads.call(x.clone().requires_grad_(True), grads=("x",))
    leaf = x.clone().requires_grad_(True)
    torch.autograd.backward(ref.heads(leaf), result.grad_output)
    expect_grad_close(result, "x", leaf.grad)
    numeric = central_differences(sub.heads, (x,), 0, grad_output=result.grad_output)
    expect_close(numeric, leaf.grad, what="central differences", rtol=1e-6, atol=1e-7)


@check("heads.given", "The gradient with a cotangent the check chose")
def heads_given(sub, ref):
    x = inputs()
    cotangent = torch.ones(2, 3, 4, 5, dtype=torch.float64)
    result = sub.heads.call(x.clone().requires_grad_(True), grads=("x",), grad_output=cotangent)
    leaf = x.clone().requires_grad_(True)
    torch.autograd.backward(ref.heads(leaf), cotangent)
    expect_grad_close(result, "x", leaf.grad)


@check("pair.vjp", "The gradient of a tuple of results")
def pair_vjp(sub, ref):
    x = inputs()[0, 0]
    result = sub.pair.call(x.clone().requires_grad_(True), grads=("x",))
    leaf = x.clone().requires_grad_(True)
    torch.autograd.backward(ref.pair(leaf), result.grad_output)
    expect_grad_close(result, "x", leaf.grad)
    numeric = central_differences(sub.pair, (x,), 0, grad_output=result.grad_output)
    expect_close(numeric, leaf.grad, what="central differences", rtol=1e-6, atol=1e-7)


@check("indexed.vjp", "The gradient of values returned beside integer indices (a quantiser, a top-k)")
def indexed_vjp(sub, ref):
    x = inputs()[0, 0]
    result = sub.indexed.call(x.clone().requires_grad_(True), grads=("x",))
    values_cotangent, indices_cotangent = result.grad_output
    expect_close(indices_cotangent, torch.zeros(4, dtype=torch.int64), what="the indices' cotangent", rtol=0, atol=0)
    leaf = x.clone().requires_grad_(True)
    torch.autograd.backward(ref.indexed(leaf)[0], values_cotangent)
    expect_grad_close(result, "x", leaf.grad)
'''

REFERENCE = '''
import torch


def heads(x):
    return torch.softmax(x, dim=-1) * x


def pair(x):
    return x.sin(), (x * x).sum(dim=0)


def indexed(x):
    values, indices = x.max(dim=1)
    return values, indices
'''


@pytest.fixture(scope="module")
def gradients_problem(tmp_path_factory: pytest.TempPathFactory) -> Problem:
    folder: Path = tmp_path_factory.mktemp("problems") / "gradients"
    folder.mkdir()
    (folder / "problem.toml").write_text(textwrap.dedent('''
        slug = "gradients"
        title = "Gradients of any shape"
        summary = "A fixture."
        difficulty = "easy"
        required_groups = ["heads", "pair", "indexed"]

        [[functions]]
        name = "heads"
        signature = "heads(x)"

        [[functions]]
        name = "pair"
        signature = "pair(x)"

        [[functions]]
        name = "indexed"
        signature = "indexed(x)"
    '''))
    (folder / "checks.py").write_text(CHECKS)
    (folder / "reference.py").write_text(REFERENCE)
    (folder / "starter.py").write_text(REFERENCE)
    (folder / "statement.md").write_text("# Gradients\n")
    (folder / "notes.md").write_text("# Notes\n")
    return load_problem(folder)


def test_vector_jacobian_products_of_any_shape_match_the_reference_and_central_differences(
    gradients_problem: Problem, sandbox_pool: WorkerPool
) -> None:
    report = grade(gradients_problem, REFERENCE, pool=sandbox_pool)
    assert report.solved, [(c.id, c.message) for c in report.checks]


@pytest.mark.parametrize(
    "submission, expected",
    [
        pytest.param(REFERENCE.replace("return torch.softmax(x, dim=-1) * x",
                                       "return torch.tensor((torch.softmax(x, dim=-1) * x).tolist(), dtype=x.dtype)"),
                     "no gradient could flow back to x: the result does not require grad", id="rebuilt-from-numbers"),
        pytest.param(REFERENCE + '''

class Broken(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        raise ArithmeticError("my backward is not written yet")


def heads(x):
    return Broken.apply(x)
''', "no gradient could flow back to x: my backward is not written yet", id="backward-raises"),
    ],
)
def test_a_result_no_gradient_flows_from_says_why(
    gradients_problem: Problem, sandbox_pool: WorkerPool, submission: str, expected: str
) -> None:
    report = grade(gradients_problem, submission, pool=sandbox_pool)
    message = next(check.message for check in report.checks if check.id == "heads.vjp")
    assert expected in message, message
