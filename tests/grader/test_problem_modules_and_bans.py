"""A problem's helpers.py is importable as `helpers` by the reference, the checks and every submission; the
library calls problem.toml bans refuse to run inside the sandbox, naming the rule."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem

pytestmark = pytest.mark.sandbox

HELPERS = '''
import torch


def check_matrix(name, value):
    if not isinstance(value, torch.Tensor) or value.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor")
'''

REFERENCE = '''
import torch

from helpers import check_matrix


def row_softmax(x):
    check_matrix("x", x)
    shifted = x - x.max(dim=1, keepdim=True).values
    return shifted.exp() / shifted.exp().sum(dim=1, keepdim=True)
'''

CHECKS = '''
import torch

from grader.checks import check, expect_close, expect_raises
from helpers import check_matrix  # the checks may use the problem's helpers too


@check("row_softmax.values", "Rows sum to one")
def values(sub, ref):
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
    check_matrix("x", x)
    expect_close(sub.row_softmax(x), ref.row_softmax(x))


@check("row_softmax.rejects", "A vector is refused")
def rejects(sub, ref):
    expect_raises("ValueError", sub.row_softmax, torch.ones(3))
'''


@pytest.fixture(scope="module")
def softmax_problem(tmp_path_factory: pytest.TempPathFactory) -> Problem:
    folder: Path = tmp_path_factory.mktemp("problems") / "row_softmax"
    folder.mkdir()
    (folder / "problem.toml").write_text(textwrap.dedent('''
        slug = "row_softmax"
        title = "Row softmax"
        summary = "A fixture."
        difficulty = "easy"
        required_groups = ["row_softmax"]
        banned_calls = ["torch.nn.functional.softmax", "torch.Tensor.softmax"]

        [[functions]]
        name = "row_softmax"
        signature = "row_softmax(x)"
    '''))
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "reference.py").write_text(REFERENCE)
    (folder / "checks.py").write_text(CHECKS)
    (folder / "starter.py").write_text(REFERENCE)
    (folder / "statement.md").write_text("# Row softmax\n")
    (folder / "notes.md").write_text("# Notes\n")
    return load_problem(folder)


def test_the_reference_and_a_submission_import_the_problems_helpers(
    softmax_problem: Problem, sandbox_pool: WorkerPool
) -> None:
    report = grade(softmax_problem, REFERENCE, pool=sandbox_pool)
    assert report.solved, [(c.id, c.message) for c in report.checks]
    assert "import helpers" not in softmax_problem.helpers and "check_matrix" in softmax_problem.helpers


@pytest.mark.parametrize(
    "call, name",
    [
        pytest.param("torch.nn.functional.softmax(x, dim=1)", "torch.nn.functional.softmax", id="function"),
        pytest.param("x.softmax(dim=1)", "torch.Tensor.softmax", id="method"),
    ],
)
def test_a_banned_call_refuses_naming_the_rule(
    softmax_problem: Problem, sandbox_pool: WorkerPool, call: str, name: str
) -> None:
    code = f"import torch\nimport torch.nn.functional\n\n\ndef row_softmax(x):\n    return {call}\n"
    report = grade(softmax_problem, code, pool=sandbox_pool)
    message = report.checks[0].message
    assert f"raised RuntimeError: {name} may not be used in this problem" in message, message
