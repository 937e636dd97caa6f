"""The template's warm-up. A warm pool's templates build an optimiser once, which imports torch._dynamo (0.7 s) for
all their children; a one-grading template (`grader grade`) does so only for code that names a way into it
(grader.warm_up), and a submission that reaches it anyway still gets the verdict a warm template gives it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.sandboxed.guard import CTYPES_FOR_DYNAMO, RAW_MEMORY_MODULES
from grader.warm_up import uses_compiler_stack

REPO = Path(__file__).resolve().parents[2]
ECHO_DIR = REPO / "tests" / "fixtures" / "problems" / "echo"

OPTIMISER_STEP = '''
import sys

import torch


def probe(x):
    parameter = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    optimiser = torch.optim.SGD([parameter], lr=0.5)
    parameter.grad = torch.tensor([1.0, -1.0])
    optimiser.step()
    return parameter.tolist()
'''

# Spelled so that grader.warm_up does not see it: what a lean template's child holds.
DYNAMO_LOADED = '''
import sys


def probe(x):
    return "torch." + "_" + "dynamo" in sys.modules
'''

DYNAMO_LOADED_BEFORE_AN_OPTIMISER = '''
import sys

import torch


def probe(x):
    loaded = "torch." + "_" + "dynamo" in sys.modules
    torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    return loaded
'''


@pytest.fixture(scope="module")
def echo() -> Problem:
    return load_problem(ECHO_DIR)


@pytest.fixture(scope="module")
def lean_pool(sandbox_status: str | None) -> Iterator[WorkerPool]:
    if sandbox_status is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to sandbox: {sandbox_status}")
        pytest.skip(f"no sandbox on this machine: {sandbox_status}")
    pool = WorkerPool(size=1, warm_optimisers=False).start()
    yield pool
    pool.close()


def echoed(problem: Problem, code: str, pool: WorkerPool) -> object:
    message = next(check.message for check in grade(problem, code, pool=pool).checks if check.id == "probe.echo")
    assert message.startswith("returned: "), message
    return json.loads(message.removeprefix("returned: "))


@pytest.mark.sandbox
def test_a_lean_templates_child_has_not_imported_dynamo(echo: Problem, lean_pool: WorkerPool) -> None:
    assert echoed(echo, DYNAMO_LOADED, lean_pool) is False


@pytest.mark.sandbox
def test_a_warm_pools_child_has_imported_dynamo(echo: Problem, sandbox_pool: WorkerPool) -> None:
    assert echoed(echo, DYNAMO_LOADED, sandbox_pool) is True


@pytest.mark.sandbox
@pytest.mark.parametrize("pool_name", ["lean_pool", "sandbox_pool"])
def test_an_optimiser_step_in_a_submission_works_from_either_template(echo: Problem, pool_name: str,
                                                                     request: pytest.FixtureRequest) -> None:
    """In a lean child the step imports torch._dynamo, and with it ctypes modules the guard refuses to import
    once the submission runs: the template loads those first (guard.CTYPES_FOR_DYNAMO)."""
    pool = request.getfixturevalue(pool_name)
    assert echoed(echo, OPTIMISER_STEP, pool) == [0.5, 2.5]


def test_the_template_loads_every_raw_memory_module_that_dynamos_import_needs() -> None:
    """Pins CTYPES_FOR_DYNAMO to the torch in use: the raw-memory modules `import torch._dynamo` loads that
    `import torch` has not."""
    script = textwrap.dedent('''
        import json, sys
        import torch
        before = set(sys.modules)
        import torch._dynamo
        print(json.dumps(sorted(set(sys.modules) - before)))
    ''')
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded = json.loads(completed.stdout.strip().splitlines()[-1])
    assert sorted(name for name in loaded if name.partition(".")[0] in RAW_MEMORY_MODULES) == \
        sorted(CTYPES_FOR_DYNAMO)


# Each way into the compiler stack that grader.warm_up names, on the pinned torch.
ENTRY_POINTS = {
    "an optimiser": "torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)",
    "a learning-rate schedule": "torch.optim.lr_scheduler.StepLR(torch.optim.SGD([torch.nn.Parameter(torch.ones(2))],"
                                " lr=0.1), 1)",
    "torch.func": "torch.func.grad(lambda x: (x * x).sum())(torch.ones(2))",
    "a checkpoint": "import torch.utils.checkpoint as c; c.checkpoint(lambda y: y * 2, torch.ones(2, "
                    "requires_grad=True), use_reentrant=False)",
}


@pytest.mark.parametrize("code", ENTRY_POINTS.values(), ids=ENTRY_POINTS.keys())
def test_each_named_entry_point_imports_the_compiler_stack_and_is_seen(code: str) -> None:
    script = f"import sys, torch\n{code}\nprint('torch._dynamo' in sys.modules)"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert completed.stdout.strip().splitlines()[-1] == "True"
    assert uses_compiler_stack(code)


@pytest.mark.parametrize(("source", "seen"), [
    ("from torch import optim", True),
    ("import torch.optim as o", True),
    ("torch.func.vmap(f)", True),
    ("model = torch.compile(model)", True),
    ("import torch.nn.functional as F", False),  # a word, not a prefix
    ("optimizer = make()", False),
    ("import torch\nx = torch.vmap(f)(y)", False),  # vmap alone does not import it
])
def test_the_words_that_choose_the_warm_up(source: str, seen: bool) -> None:
    assert uses_compiler_stack(source) is seen


def grade_with_the_cli(source: str, tmp_path: Path, problem: Path = ECHO_DIR) -> list[str]:
    submission = tmp_path / "probe.py"
    submission.write_text(source)
    completed = subprocess.run([sys.executable, "-m", "grader", "grade", str(problem), str(submission), "--json"],
                               capture_output=True, text=True, cwd=REPO, check=False)
    assert completed.stdout, completed.stderr
    return [check["message"] for check in json.loads(completed.stdout)["checks"]]


@pytest.mark.sandbox
def test_grader_grade_grades_most_code_from_a_lean_template(need_sandbox: None, tmp_path: Path) -> None:
    assert grade_with_the_cli(DYNAMO_LOADED, tmp_path) == ["returned: false"]


@pytest.mark.sandbox
def test_grader_grade_warms_the_compiler_stack_for_code_that_names_it(need_sandbox: None, tmp_path: Path) -> None:
    """So the optimiser's 0.7 s and 73 MB are the template's, as on the server, and not the learner's call's."""
    assert grade_with_the_cli(DYNAMO_LOADED_BEFORE_AN_OPTIMISER, tmp_path) == ["returned: true"]


@pytest.mark.sandbox
def test_grader_grade_warms_the_compiler_stack_for_helpers_that_name_it(need_sandbox: None, tmp_path: Path) -> None:
    """A problem's helpers.py runs in the child as the submission does."""
    folder = tmp_path / "echo"
    shutil.copytree(ECHO_DIR, folder)
    (folder / "helpers.py").write_text('"""Supplied: an optimiser."""\n\nimport torch\n\n\n'
                                       "def optimiser_for(parameter):\n"
                                       "    return torch.optim.SGD([parameter], lr=0.1)\n")
    assert grade_with_the_cli(DYNAMO_LOADED, tmp_path, problem=folder) == ["returned: true"]
