"""Specification of grader.refcache: the reference's answers are computed once per battery (the problem's
graded files, the engine's version and torch's), kept in memory and, for the CLI, on disk; anything that could
make a kept answer differ from a fresh one is not kept, and a kept answer is never handed out itself."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from bench.inprocess import InProcessPool
from grader import battery_hash, grade, load_problem, refcache
from grader.fingerprint import engine_version
from grader.problems import Problem
from grader.refcache import ReferenceAnswers, answers_for, cache_key, call_key

ADDER = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "adder"
APPENDED_CHECK = '''

@check("add_one.counted", "add_one on a second input")
def add_one_counted(sub, ref):
    x = torch.full((2,), 4.0)
    expect_close(sub.add_one(x), ref.add_one(x))
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(ADDER, tmp_path / "adder")
    return tmp_path / "adder"


@pytest.fixture
def disk(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def graded(problem: Problem, code: str | None = None) -> list[tuple[str, str, str]]:
    report = grade(problem, code if code is not None else problem.reference_source(), pool=InProcessPool())  # type: ignore[arg-type]
    return [(check.id, check.status, check.message) for check in report.checks]


# ------------------------------------------------------------------------------------ which battery it is for


@pytest.mark.parametrize("part", ["checks.py", "reference.py", "problem.toml", "helpers.py"])
def test_a_changed_graded_file_is_another_battery_whose_answers_start_empty(folder: Path, disk: Path,
                                                                          part: str) -> None:
    before = ReferenceAnswers(load_problem(folder), directory=disk)
    before.module.add_one(torch.ones(2))
    before.save()
    assert len(ReferenceAnswers(load_problem(folder), directory=disk)) == 1  # unchanged: read back
    path = folder / part
    path.write_text((path.read_text() if path.exists() else "") + "\n# edited\n")
    after = ReferenceAnswers(load_problem(folder), directory=disk)
    assert after.key != before.key and battery_hash(after.problem) != battery_hash(before.problem)
    assert len(after) == 0


def test_the_statement_and_the_starter_do_not_change_the_battery(folder: Path) -> None:
    key = cache_key(load_problem(folder))
    for part in ("statement.md", "starter.py", "notes.md"):
        (folder / part).write_text((folder / part).read_text() + "\nedited\n")
    assert cache_key(load_problem(folder)) == key


def test_the_key_names_the_engine_and_torch_versions(folder: Path) -> None:
    key = cache_key(load_problem(folder))
    assert torch.__version__ in key and engine_version() in key


def test_a_file_written_under_another_key_is_not_read(folder: Path, disk: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder), directory=disk)
    assert answers.path is not None
    answers.path.parent.mkdir(parents=True)
    x = torch.ones(2)
    forged = {call_key("add_one", (x,), {}): torch.full((2,), 99.0)}
    torch.save({"key": answers.key.replace("1:", "0:", 1), "answers": forged}, answers.path)
    again = ReferenceAnswers(load_problem(folder), directory=disk)
    assert len(again) == 0
    assert torch.equal(again.module.add_one(x), torch.full((2,), 2.0))


@pytest.mark.parametrize("content", [b"", b"not a torch file", b"\x80\x04\x95garbage"])
def test_a_corrupt_file_is_ignored_and_rewritten(folder: Path, disk: Path, content: bytes) -> None:
    answers = ReferenceAnswers(load_problem(folder), directory=disk)
    assert answers.path is not None
    answers.path.parent.mkdir(parents=True)
    answers.path.write_bytes(content)
    fresh = ReferenceAnswers(load_problem(folder), directory=disk)
    assert len(fresh) == 0
    fresh.module.add_one(torch.ones(3))
    fresh.save()
    assert len(ReferenceAnswers(load_problem(folder), directory=disk)) == 1


def test_a_file_holding_code_is_refused_not_run(folder: Path, disk: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder), directory=disk)
    assert answers.path is not None
    answers.path.parent.mkdir(parents=True)
    torch.save({"key": answers.key, "answers": {"k": random.Random}}, answers.path)  # a class: not plain data
    assert len(ReferenceAnswers(load_problem(folder), directory=disk)) == 0


def test_kept_entries_that_are_not_plain_values_are_dropped(folder: Path, disk: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder), directory=disk)
    assert answers.path is not None
    answers.path.parent.mkdir(parents=True)
    grad = torch.ones(1, requires_grad=True)
    torch.save({"key": answers.key, "answers": {"a": torch.ones(1), "b": grad, 3: torch.ones(1)}}, answers.path)
    assert len(ReferenceAnswers(load_problem(folder), directory=disk)) == 1


def test_without_a_directory_nothing_is_written(folder: Path, tmp_path: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    answers.module.add_one(torch.ones(2))
    answers.save()
    assert answers.path is None and len(answers) == 1


# ------------------------------------------------------------------------------------------ what is kept


def test_the_same_input_is_computed_once_and_a_different_one_again(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    for x in (torch.ones(2), torch.ones(2), torch.ones(3), torch.ones(2, dtype=torch.float64)):
        answers.module.add_one(x)
    assert (answers.hits, answers.misses, len(answers)) == (1, 3, 3)


@pytest.mark.parametrize("other", [
    pytest.param(lambda: torch.tensor([1.0, 2.0, 3.0, 4.0]).reshape(2, 2).t(), id="strides"),
    pytest.param(lambda: torch.tensor([9.0, 1.0, 2.0, 3.0, 4.0])[1:].reshape(2, 2), id="offset"),
    pytest.param(lambda: torch.tensor([[1.0, 2.0], [3.0, 5.0]]), id="values"),
    pytest.param(lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True), id="requires_grad"),
    pytest.param(lambda: torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]])), id="parameter"),
    pytest.param(lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]], device="meta"), id="device"),
])
def test_every_property_of_an_argument_is_part_of_the_key(other: Any) -> None:
    base = call_key("f", (torch.tensor([[1.0, 2.0], [3.0, 4.0]]),), {})
    assert call_key("f", (other(),), {}) != base
    assert call_key("f", (torch.tensor([[1.0, 2.0], [3.0, 4.0]]),), {}) == base


def test_scalars_of_equal_value_and_other_type_are_other_inputs() -> None:
    keys = {call_key("f", (value,), {}) for value in (1, 1.0, True, "1", None, (1,), [1], {"a": 1})}
    assert len(keys) == 8
    assert call_key("f", (), {"a": 1}) != call_key("f", (1,), {})
    assert call_key("f", (1,), {}) != call_key("g", (1,), {})


def test_the_grad_mode_and_default_dtype_are_part_of_the_key() -> None:
    base = call_key("f", (1,), {})
    with torch.no_grad():
        assert call_key("f", (1,), {}) != base
    torch.set_default_dtype(torch.float64)
    try:
        assert call_key("f", (1,), {}) != base
    finally:
        torch.set_default_dtype(torch.float32)


def test_shared_storage_between_arguments_is_part_of_the_key() -> None:
    x = torch.ones(3)
    assert call_key("f", (x, x), {}) != call_key("f", (x, x.clone()), {})


def test_an_argument_the_cache_cannot_key_is_passed_through_uncached(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    seen: list[torch.Generator] = []

    def keep(g: torch.Generator) -> int:
        seen.append(g)
        return 1

    value = answers.call("f", keep, (torch.Generator(),), {})
    assert value == 1 and len(seen) == 1 and len(answers) == 0


def test_a_result_that_requires_grad_is_recomputed_with_its_graph(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    for _ in range(2):
        x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        out = answers.module.scaled_sum(x, 3.0)
        out.backward()
        assert x.grad is not None and torch.equal(x.grad, torch.full((2,), 3.0, dtype=torch.float64))
    assert len(answers) == 0


def test_a_result_that_shares_storage_with_an_argument_is_not_kept(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    x = torch.ones(2)
    assert answers.call("same", lambda t: t, (x,), {}) is x
    assert answers.call("view", lambda t: t[:1], (x,), {}).data_ptr() == x.data_ptr()
    assert len(answers) == 0


def test_an_answer_that_drew_random_numbers_is_not_kept(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    first = answers.call("noisy", lambda t: t + torch.rand(()), (torch.ones(()),), {})
    second = answers.call("noisy", lambda t: t + torch.rand(()), (torch.ones(()),), {})
    answers.call("dice", lambda n: random.random() * n, (2,), {})
    assert not torch.equal(first, second) and len(answers) == 0


def test_an_answer_that_wrote_into_its_arguments_is_not_kept(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))

    def clip(grads: list[torch.Tensor], log: dict[str, int]) -> float:
        grads[0].mul_(0.5)
        log["calls"] = log.get("calls", 0) + 1
        return 1.0

    log: dict[str, int]
    for _ in range(2):
        grads, log = [torch.ones(2)], {}
        assert answers.call("clip", clip, (grads, log), {}) == 1.0
        assert torch.equal(grads[0], torch.full((2,), 0.5)) and log == {"calls": 1}
    appended: list[int] = []
    answers.call("append", lambda items: items.append(1), (appended,), {})
    assert len(answers) == 0


def test_an_answer_that_raised_is_not_kept_and_raises_again(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    for _ in range(2):
        with pytest.raises(TypeError):
            answers.module.scaled_sum(torch.ones(2), True)
    assert len(answers) == 0


def test_an_answer_of_another_kind_is_not_kept(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    assert answers.call("obj", lambda n: {n: n}, (1,), {}) == {1: 1}  # a dict keyed by a number
    assert answers.call("gen", lambda n: torch.Generator(), (1,), {}) is not None
    assert len(answers) == 0


def test_a_kept_answer_cannot_be_changed_by_whoever_received_it(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    produced = answers.call("pair", lambda t: (t + 1, [t * 2], {"n": 3}), (torch.ones(2),), {})
    produced[0].fill_(99.0)
    produced[1][0].fill_(99.0)
    produced[1].append("extra")
    produced[2]["n"] = 4
    for _ in range(2):
        got = answers.call("pair", lambda t: pytest.fail("computed again"), (torch.ones(2),), {})
        assert torch.equal(got[0], torch.full((2,), 2.0)) and torch.equal(got[1][0], torch.full((2,), 2.0))
        assert len(got[1]) == 1 and got[2] == {"n": 3}
        got[0].fill_(-1.0)


def test_names_that_are_not_the_problems_functions_are_the_modules_own(folder: Path) -> None:
    problem = load_problem(folder)
    answers = ReferenceAnswers(problem)
    assert answers.module.torch is torch
    assert answers.module.add_one.__wrapped__ is problem.reference.add_one
    assert answers.module.add_one is answers.module.add_one  # wrapped once
    with pytest.raises(AttributeError):
        answers.module.no_such_name  # noqa: B018
    assert "adder" in repr(answers.module)


def test_past_its_bytes_the_least_recently_used_answer_goes(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A check may ask about a value the learner's code returned, so a server must not keep every answer.
    monkeypatch.setattr(refcache, "MAX_BYTES", 300)  # four answers of one float (4 bytes + 64)
    answers = ReferenceAnswers(load_problem(folder))
    for n in range(4):
        answers.module.add_one(torch.full((1,), float(n)))
    answers.module.add_one(torch.full((1,), 0.0))  # asked again: now the most recently used
    answers.module.add_one(torch.full((1,), 4.0))  # one too many: 1.0 is the oldest
    assert len(answers) == 4 and answers.nbytes <= 300
    hits, misses = answers.hits, answers.misses
    answers.module.add_one(torch.full((1,), 0.0))
    assert (answers.hits, answers.misses) == (hits + 1, misses)
    answers.module.add_one(torch.full((1,), 1.0))
    assert answers.misses == misses + 1


def test_an_answer_above_a_quarter_of_the_budget_is_computed_and_not_kept(folder: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refcache, "MAX_BYTES", 300)
    answers = ReferenceAnswers(load_problem(folder))
    assert torch.equal(answers.module.add_one(torch.zeros(100)), torch.ones(100))
    assert len(answers) == 0 and answers.nbytes == 0


# ------------------------------------------------------------------------------------------ in a grading


def test_a_grading_from_the_cache_gives_the_same_verdicts_and_saves_to_disk(folder: Path, disk: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refcache, "_disk", disk)
    path = folder / "checks.py"
    path.write_text(path.read_text() + APPENDED_CHECK)
    wrong = "import torch\ndef add_one(x):\n    return x + 2\ndef scaled_sum(x, factor):\n    return x.sum()\n"
    problem = load_problem(folder)
    first = (graded(problem), graded(problem, wrong))
    cached = answers_for(problem)
    assert cached.misses > 0 and cached.path is not None and cached.path.is_file()
    again = load_problem(folder)  # another process: the answers come from disk
    reread = answers_for(again)
    assert reread is not cached and len(reread) == len(cached) > 0
    assert (graded(again), graded(again, wrong)) == first
    assert reread.hits > 0 and reread.misses == 0
    assert [status for _, status, _ in first[0]] == ["passed"] * len(first[0])
    assert "failed" in [status for _, status, _ in first[1]]


def test_each_loaded_problem_has_its_own_answers(folder: Path) -> None:
    one, two = load_problem(folder), load_problem(folder)
    assert answers_for(one) is answers_for(one)
    assert answers_for(one) is not answers_for(two)


def test_a_problem_loaded_again_replaces_the_answers_of_its_folder(folder: Path) -> None:
    # The author's live reload loads a problem on every edit: the process keeps one entry per folder.
    for _ in range(3):
        answers_for(load_problem(folder))
    assert [path for path in refcache._by_problem if path == folder] == [folder]


def test_use_disk_sets_where_answers_of_problems_loaded_later_go(folder: Path, disk: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refcache, "_disk", None)
    refcache.use_disk(disk)
    assert answers_for(load_problem(folder)).directory == disk
    refcache.use_disk(None)
    assert answers_for(load_problem(folder)).directory is None


def test_the_default_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAPERLAB_CACHE_DIR", str(tmp_path / "mine"))
    assert refcache.default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("PAPERLAB_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert refcache.default_cache_dir() == tmp_path / "xdg" / "paperlab"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert refcache.default_cache_dir() == tmp_path / "home" / ".cache" / "paperlab"


def test_an_unwritable_directory_costs_the_saving_not_the_grading(folder: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    answers = ReferenceAnswers(load_problem(folder), directory=blocked)
    answers.module.add_one(torch.ones(2))
    answers.save()  # logs, does not raise
    assert len(answers) == 1


def test_a_memo_keeps_a_derived_answer_per_input_and_cotangent(folder: Path) -> None:
    answers = ReferenceAnswers(load_problem(folder))
    memo = answers.module._paperlab_memo
    computed: list[int] = []

    def gradient(cotangent: torch.Tensor) -> dict[str, torch.Tensor]:
        computed.append(1)
        return {"x": cotangent * 3}

    x, one, two = torch.zeros(2), torch.ones(2), torch.full((2,), 2.0)
    first = memo("f: gradients", ({"x": x}, ("x",), one), lambda: gradient(one))
    again = memo("f: gradients", ({"x": x.clone()}, ("x",), one.clone()), lambda: gradient(one))
    other = memo("f: gradients", ({"x": x}, ("x",), two), lambda: gradient(two))
    assert len(computed) == 2 and torch.equal(first["x"], again["x"]) and torch.equal(other["x"], two * 3)
    first["x"].fill_(0.0)
    assert torch.equal(memo("f: gradients", ({"x": x}, ("x",), one), lambda: gradient(one))["x"], one * 3)


def test_the_generic_batterys_reference_gradients_are_computed_once(folder: Path) -> None:
    from grader.contract import battery

    calls: list[str] = []
    original = battery.FunctionBattery._reference_grads

    def counted(self: Any, ref: Any, case: Any, cotangent: Any) -> Any:
        calls.append(self.name)
        return original(self, ref, case, cotangent)

    problem = load_problem("moco")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(battery.FunctionBattery, "_reference_grads", counted)
        first = graded(problem)
        once = len(calls)
        assert graded(problem) == first
    assert once > 0 and len(calls) == once  # the second grading computed none again
