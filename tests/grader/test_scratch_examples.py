"""Every problem's "Try it" example runs against its reference and prints something; a problem without one
gets a generic example naming its functions (problems are added all the time, not all with a scratch.py)."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from grader import load_problem, scratch_example
from grader.helpers_import import importable_as_helpers
from grader.problems import PROBLEMS_DIR
from grader.scratch import SCRATCH_FILE

PROBLEMS = sorted(path.parent.name for path in PROBLEMS_DIR.glob("*/problem.toml"))


@pytest.mark.parametrize("slug", PROBLEMS)
def test_the_example_script_runs_after_the_reference(slug: str) -> None:
    problem = load_problem(slug)
    namespace: dict[str, object] = {"__name__": "submission"}
    printed = io.StringIO()
    # `import helpers` gives the problem's helpers.py, as in the sandbox, where it is loaded beside the code.
    with importable_as_helpers(problem.helpers_module), contextlib.redirect_stdout(printed):
        # Trusted code only: the problem's own reference, then its example (as a scratch run would order them).
        exec(compile(problem.reference_source(), "reference.py", "exec"), namespace)  # noqa: S102
        exec(compile(scratch_example(problem), SCRATCH_FILE, "exec"), namespace)  # noqa: S102
    assert printed.getvalue().strip(), f"{slug}'s example prints nothing"


def test_a_problem_without_an_example_gets_one_naming_its_functions(tmp_path: Path) -> None:
    folder = tmp_path / "moco"
    shutil.copytree(PROBLEMS_DIR / "moco", folder)
    (folder / SCRATCH_FILE).unlink()
    example = scratch_example(load_problem(folder))
    assert "moco_loss, momentum_update, enqueue" in example
    assert "# print(moco_loss(query, key, queue, temperature))" in example
    compile(example, SCRATCH_FILE, "exec")
