"""The grading runner and the in-process backend: idempotent, never loses a submission, never leaves one
running, and picks up what a previous process left unfinished."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import update

from app.db import make_engine, make_session_factory, transaction
from app.grading.event_bus import GradingEvent, InMemoryEventBus
from app.grading.runner import MAX_ATTEMPTS, grade_submission
from app.migrate import upgrade
from app.models import Learner, Solved, Submission
from app.settings import Settings
from grader.problems import Problem, load_problem
from grader.report import CheckResult, Report
from tests.app.app_support import CORRECT, NoPool, TestClient, submit, wait_for_verdict
from tests.app.conftest import Server


def test_submissions_left_unfinished_are_graded_at_start_up(
    make_server: Callable[..., Server], make_settings: Callable[..., Settings]
) -> None:
    # A previous process stored three submissions and died: one queued, one mid-grading, one finished.
    settings = make_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    with transaction(make_session_factory(engine)) as session:
        session.add_all([Learner(id="a"), Learner(id="b"), Learner(id="c")])
        session.flush()
        session.add_all(
            [
                Submission(id="queued-1", learner_id="a", problem="add_one", code=CORRECT, status="queued"),
                Submission(id="running-1", learner_id="b", problem="add_one", code=CORRECT, status="running",
                           attempts=1),
                Submission(id="done-1", learner_id="c", problem="add_one", code=CORRECT, status="done",
                           report=None),
            ]
        )
    engine.dispose()

    server = make_server()
    state = server.app.state.paperlab
    state.backend.wait_idle()
    with state.session_factory() as session:
        queued, running, done = (session.get(Submission, i) for i in ("queued-1", "running-1", "done-1"))
        assert queued is not None and running is not None and done is not None
        assert (queued.status, queued.solved, queued.attempts) == ("done", True, 1)
        assert (running.status, running.solved, running.attempts) == ("done", True, 2)
        assert (done.status, done.report, done.attempts) == ("done", None, 0)  # not graded again
        assert session.get(Solved, ("b", "add_one")) is not None


class CountingGrader:
    def __init__(self, result: Callable[[], Report] | None = None) -> None:
        self.calls = 0
        self.result = result

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None, **_: Any) -> Report:
        self.calls += 1
        if self.result is None:
            raise RuntimeError("the judge fell over")
        return self.result()


@pytest.fixture
def database(make_settings: Callable[..., Settings]) -> Any:
    engine = make_engine(make_settings().database_url)
    upgrade(engine)
    factory = make_session_factory(engine)
    with transaction(factory) as session:
        session.add(Learner(id="learner"))
        session.flush()
        session.add(
            Submission(id="s", learner_id="learner", problem="add_one", code=CORRECT, status="queued")
        )
    yield factory
    engine.dispose()


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    from tests.app.app_support import PROBLEMS

    return {"add_one": load_problem(PROBLEMS / "add_one")}


def _grade(database: Any, problems: dict[str, Problem], grade: CountingGrader) -> Submission:
    grade_submission(
        session_factory=database, submission_id="s", problems=problems, pool=NoPool(), bus=InMemoryEventBus(),
        grade=grade,
    )
    with database() as session:
        submission: Submission | None = session.get(Submission, "s")
        assert submission is not None
        return submission


def test_a_grader_crash_ends_in_error_with_a_report_that_does_not_blame_the_learner(
    database: Any, problems: dict[str, Problem], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="app.grading.runner"):
        submission = _grade(database, problems, CountingGrader())
    assert submission.status == "error" and submission.finished_at is not None
    report = Report.model_validate_json(submission.report or "")
    assert report.status == "error" and not report.solved
    assert report.error is not None and report.error.kind == "grader"
    assert "not in your code" in report.error.message and "the judge fell over" in report.error.message
    assert "the judge fell over" in caplog.text  # logged with its traceback


def test_grading_is_idempotent(database: Any, problems: dict[str, Problem]) -> None:
    grader = CountingGrader(lambda: _passing_report())
    assert _grade(database, problems, grader).status == "done"
    assert _grade(database, problems, grader).status == "done"
    assert grader.calls == 1


def test_a_submission_that_keeps_killing_its_grader_is_given_up(
    database: Any, problems: dict[str, Problem]
) -> None:
    with transaction(database) as session:
        session.execute(update(Submission).values(status="running", attempts=MAX_ATTEMPTS))
    grader = CountingGrader(lambda: _passing_report())
    submission = _grade(database, problems, grader)
    assert grader.calls == 0
    assert submission.status == "error" and "interrupted 3 times" in (submission.report or "")


@pytest.mark.parametrize("told_solved", [True, False])
def test_a_submission_given_up_keeps_the_verdict_an_interrupted_grading_told(
    database: Any, problems: dict[str, Problem], told_solved: bool
) -> None:
    # An earlier grading told "solved" (the notes unlocked) and the process died among the advisory checks, each
    # time: the report of the submission given up says solved, as the page did, and which checks it rests on.
    with transaction(database) as session:
        session.execute(update(Submission).values(status="running", attempts=MAX_ATTEMPTS, solved=told_solved))
    submission = _grade(database, problems, CountingGrader(lambda: _passing_report()))
    report = Report.model_validate_json(submission.report or "")
    assert submission.status == "error" and report.error is not None and "interrupted 3 times" in report.error.message
    assert (report.solved, submission.solved) == (told_solved, told_solved)
    required = [check.id for check in problems["add_one"].checks if check.required]
    if told_solved:
        assert "stays solved" in report.error.message and "run it again" not in report.error.message
        assert [check.id for check in report.checks] == required
        assert all(check.status == "passed" and "earlier grading" in check.message for check in report.checks)
    else:
        assert report.checks == []


def test_a_problem_that_disappeared_ends_in_error(database: Any) -> None:
    submission = _grade(database, {}, CountingGrader(lambda: _passing_report()))
    assert submission.status == "error" and "no longer available" in (submission.report or "")


def _passing_report() -> Report:
    from grader.report import CheckResult, summarise

    check = CheckResult(id="add_one.x", title="x", group="add_one", required=True, status="passed")
    return summarise(problem="add_one", checks=[check], experiment=None, limits={}, sandbox="none",
                     duration_ms=1.0)


def test_printed_output_is_escaped_on_every_page(client: TestClient) -> None:
    hostile = (
        "import torch\n\n"
        "def add_one(x):\n"
        "    print('<script>alert(1)</script>')\n"
        "    raise ValueError('<img src=x onerror=alert(2)>')\n"
    )
    submission_id = submit(client, hostile).json()["id"]
    verdict = wait_for_verdict(client, submission_id)
    assert "<script>alert(1)</script>" in str(verdict["report"])  # JSON keeps it as data
    page = client.get(f"/submissions/{submission_id}")
    assert page.status_code == 200
    assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    editor = client.get("/problems/add_one")
    assert "<script>alert(1)" not in editor.text and "&lt;script&gt;alert(1)" in editor.text


class RecordingBus(InMemoryEventBus):
    def __init__(self) -> None:
        super().__init__()
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, submission_id: str, event: GradingEvent) -> None:
        self.published.append((event.kind, event.data))
        super().publish(submission_id, event)


class VerdictFirstGrader:
    """Tells `verdict`, looks at what the runner has stored by then, then ends as `then` says: a report, or a
    crash of the grader while the advisory checks run."""

    def __init__(self, database: Any, verdict: bool, then: Callable[[], Report] | None) -> None:
        self.database, self.verdict, self.then = database, verdict, then
        self.seen: tuple[str, bool] | None = None  # (submission status, notes unlocked) right after the verdict

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_verdict: Any = None, **_: Any) -> Report:
        on_verdict(self.verdict)
        with self.database() as session:
            submission = session.get(Submission, "s")
            self.seen = (submission.status, session.get(Solved, ("learner", "add_one")) is not None)
        if self.then is None:
            raise RuntimeError("the judge fell over among the advisory checks")
        return self.then()


def _grade_with(database: Any, problems: dict[str, Problem], grader: VerdictFirstGrader,
                bus: RecordingBus) -> Submission:
    grade_submission(session_factory=database, submission_id="s", problems=problems, pool=NoPool(), bus=bus,
                     grade=grader)
    with database() as session:
        submission: Submission | None = session.get(Submission, "s")
        assert submission is not None
        return submission


def test_a_solved_verdict_unlocks_the_notes_while_the_advisory_checks_still_run(
    database: Any, problems: dict[str, Problem]
) -> None:
    bus = RecordingBus()
    grader = VerdictFirstGrader(database, True, _passing_report)
    submission = _grade_with(database, problems, grader, bus)
    assert grader.seen == ("running", True)
    kinds = [kind for kind, _ in bus.published]
    assert ("verdict", {"solved": True}) in bus.published and kinds.index("verdict") < kinds.index("finished")
    assert submission.status == "done" and submission.solved


def test_a_verdict_of_not_solved_unlocks_nothing(database: Any, problems: dict[str, Problem]) -> None:
    bus = RecordingBus()
    grader = VerdictFirstGrader(database, False, _passing_report)
    _grade_with(database, problems, grader, bus)
    assert grader.seen == ("running", False)
    assert ("verdict", {"solved": False}) in bus.published


def test_a_grader_crash_after_a_solved_verdict_keeps_the_verdict_the_page_showed(
    database: Any, problems: dict[str, Problem], caplog: pytest.LogCaptureFixture
) -> None:
    class ChecksThenVerdict(VerdictFirstGrader):
        def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None, **rest: Any) -> Report:
            on_check(CheckResult(id="add_one.x", title="x", group="add_one", required=True, status="passed"))
            return super().__call__(problem, code, pool=pool, **rest)

    with caplog.at_level(logging.ERROR, logger="app.grading.runner"):
        submission = _grade_with(database, problems, ChecksThenVerdict(database, True, None), RecordingBus())
    report = Report.model_validate_json(submission.report or "")
    assert submission.status == "error" and report.error is not None and report.error.kind == "grader"
    assert report.solved and submission.solved
    with database() as session:
        assert session.get(Solved, ("learner", "add_one")) is not None
