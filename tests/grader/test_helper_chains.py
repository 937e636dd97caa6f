"""A problem's helper handed the learner's functions: one request for a run whose calls feed each other, run in the
worker on the learner's thread, its result the learner's to shape and the judge's to compare."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report

ADDER = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "adder"
HELPERS = '''
def run(functions, x, steps):
    """add_one applied `steps` times, each to the last one's result: every state from x on."""
    add_one = functions["add_one"]
    states = [x]
    for _ in range(steps):
        x = add_one(x)
        states.append(x)
    return states


def handed(functions):
    return sorted(functions)
'''
CHECKS = '''
import torch

from grader.checks import check, expect_close, fail


@check("chain.run", "add_one applied three times, each to the last result, in one request")
def chain_run(sub, ref):
    result = sub.from_helpers("run", uses=("add_one",)).call(torch.zeros(2), 3)
    if result.raised is not None:
        fail(f"the run raised {result.raised.summary()}")
    states = result.value
    if not isinstance(states, list) or len(states) != 4:
        fail(f"expected 4 states, got {states!r}")
    for step, state in enumerate(states):
        expect_close(state, torch.full((2,), float(step)), what=f"state {step}")


@check("chain.handed", "the helper is handed exactly the functions named")
def chain_handed(sub, ref):
    names = sub.from_helpers("handed", uses=("add_one", "scaled_sum")).call().unwrap()
    if names != ["add_one", "scaled_sum"]:
        fail(f"handed {names!r}")
'''


@pytest.fixture(scope="module")
def chain_problem(tmp_path_factory: pytest.TempPathFactory) -> Problem:
    folder = tmp_path_factory.mktemp("problems") / "adder"
    shutil.copytree(ADDER, folder)
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "checks.py").write_text(CHECKS)
    shutil.rmtree(folder / "mutants")
    shutil.rmtree(folder / "variants")
    return load_problem(str(folder))


@pytest.fixture
def pool(sandbox_pool: WorkerPool) -> WorkerPool:
    return sandbox_pool


def graded(problem: Problem, code: str, pool: WorkerPool) -> Report:
    return grade(problem, code, pool=pool)


def by_id(report: Report) -> dict[str, str]:
    return {check.id: check.status for check in report.checks}


@pytest.mark.sandbox
def test_a_helper_runs_the_learners_function_on_its_own_results(chain_problem: Problem, pool: WorkerPool) -> None:
    report = graded(chain_problem, (ADDER / "reference.py").read_text(), pool)
    assert by_id(report) == {"chain.run": "passed", "chain.handed": "passed"}, report.model_dump_json()[:2000]


@pytest.mark.sandbox
def test_the_helper_is_handed_the_learners_functions_not_the_references(chain_problem: Problem,
                                                                       pool: WorkerPool) -> None:
    wrong = (ADDER / "reference.py").read_text().replace("return x + 1", "return x + 2")
    report = graded(chain_problem, wrong, pool)
    failed = next(check for check in report.checks if check.id == "chain.run")
    assert failed.status == "failed"
    assert "state 1" in (failed.message or "")


@pytest.mark.sandbox
def test_a_helper_that_drives_a_missing_function_is_not_sent(chain_problem: Problem, pool: WorkerPool) -> None:
    code = "def scaled_sum(x, factor):\n    return x.sum() * factor\n"
    report = graded(chain_problem, code, pool)
    failed = next(check for check in report.checks if check.id == "chain.run")
    assert failed.status == "failed"
    assert "your code defines no function add_one" in (failed.message or "")


@pytest.mark.sandbox
def test_what_the_learner_raises_inside_the_helper_is_the_calls_exception(chain_problem: Problem,
                                                                        pool: WorkerPool) -> None:
    code = (ADDER / "reference.py").read_text().replace("return x + 1", "raise ValueError('no adding today')")
    failed = next(check for check in graded(chain_problem, code, pool).checks if check.id == "chain.run")
    assert failed.status == "failed"
    assert "ValueError: no adding today" in (failed.message or "")


@pytest.mark.parametrize(("name", "uses", "match"), [
    ("no_such_helper", ("add_one",), "has no function 'no_such_helper'"),
    ("run", (), "is handed no learner function"),
    ("run", ("add_two",), "'add_two' is not a function of problem"),
])
def test_a_check_that_names_a_helper_wrongly_is_a_check_bug(chain_problem: Problem, name: str,
                                                            uses: tuple[str, ...], match: str) -> None:
    from grader.judge import CheckRunner, RemoteSubmission

    sub = RemoteSubmission(CheckRunner(chain_problem, session=None, functions=("add_one",)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=match):
        sub.from_helpers(name, uses=uses)


def test_the_worker_finds_a_helper_only_in_the_problems_own_modules() -> None:
    # The request names a module; the worker looks it up among the modules sent with the load, never elsewhere
    # (not `os`, not the worker's own): anything else is a function it does not have.
    import types

    from grader import protocol
    from grader.sandboxed.learner_thread import Output, learner_namespace
    from grader.sandboxed.serving import Served

    served = Served(types.ModuleType("submission"), Output(learner_namespace(), 100),
                    lambda f, a, k: (True, f(*a, **k)), [], None, arena_copies=True)
    helpers = types.ModuleType("helpers")
    helpers.run = lambda functions, x: x  # type: ignore[attr-defined]
    served.modules = {"helpers": helpers}
    arguments, blobs = protocol.encode(((torch.zeros(1),), {}))
    base = {"arguments": arguments, "grads": [], "grad_output": None, "uses": ["f"]}
    assert not served.call({**base, "function": "run", "module": "helpers"}, [bytearray(b) for b in blobs], [])[
        "missing"]
    for module, function in [("os", "system"), ("sys", "exit"), ("grader", "judge"), ("helpers", "no_such")]:
        reply = served.call({**base, "function": function, "module": module}, [bytearray(b) for b in blobs], [])
        assert reply["missing"], (module, function)
