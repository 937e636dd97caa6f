"""grader.report: solved and status derive from the checks; the JSON document round-trips."""

from __future__ import annotations

import json

import pytest

from grader.report import (
    MAX_MESSAGE_CHARS,
    MAX_OUTPUT_CHARS,
    MAX_REPORT_BYTES,
    CheckResult,
    Experiment,
    Report,
    ReportError,
    cap_text,
    summarise,
)


def result(status: str, *, required: bool = True, id: str = "g.c") -> CheckResult:
    return CheckResult(id=id, title=id, group=id.split(".")[0], required=required, status=status)


def report(checks: list[CheckResult], error: ReportError | None = None) -> Report:
    return summarise(problem="adder", checks=checks, experiment=None, limits={"memory_mb": 256},
                     sandbox="bubblewrap", duration_ms=12.34567, error=error)


@pytest.mark.parametrize(
    "checks, error, solved, status",
    [
        pytest.param([result("passed"), result("passed")], None, True, "passed", id="all-passed"),
        pytest.param([result("passed"), result("failed", required=False)], None, True, "passed",
                     id="advisory-failure-still-solves"),
        pytest.param([result("passed"), result("failed")], None, False, "failed", id="required-failure"),
        pytest.param([result("passed"), result("skipped")], None, False, "failed", id="required-skipped"),
        pytest.param([result("passed"), result("error", required=False)], None, False, "error",
                     id="grader-error-never-solves"),
        pytest.param([result("skipped")], ReportError(kind="load", message="x"), False, "error", id="load-error"),
        pytest.param([result("skipped")], ReportError(kind="limit", message="x"), False, "error", id="limit"),
        pytest.param([result("passed")], ReportError(kind="sandbox", message="x"), False, "error", id="no-sandbox"),
        pytest.param([], None, False, "failed", id="no-checks-is-not-solved"),
    ],
)
def test_summarise_derives_solved_and_status(checks: list[CheckResult], error: ReportError | None, solved: bool,
                                             status: str) -> None:
    got = report(checks, error)
    assert (got.solved, got.status) == (solved, status)


def test_counts_and_rounding() -> None:
    got = report([result("passed", id="a.x"), result("failed", id="a.y"), result("passed", id="b.z")])
    assert got.passed_count == 2
    assert got.duration_ms == 12.346


def test_json_round_trip_and_contract_fields() -> None:
    original = summarise(
        problem="adder",
        checks=[CheckResult(id="add_one.values", title="Values", group="add_one", required=True, status="failed",
                            message="expected 1, got 2", duration_ms=1.5, output="printed\n")],
        experiment=Experiment(steps=[0, 1], series={"loss": [1.0, 0.5]}),
        limits={"call_timeout_s": 3.0, "memory_mb": 256},
        sandbox="none",
        duration_ms=40.0,
        error=ReportError(kind="load", message="your code failed to load", line=3),
    )
    text = original.model_dump_json()
    assert "\n" not in text
    document = json.loads(text)
    assert set(document) >= {"problem", "solved", "status", "checks", "experiment", "limits", "duration_ms",
                             "sandbox", "error"}
    assert document["checks"][0] == {"id": "add_one.values", "title": "Values", "group": "add_one", "required": True,
                                     "status": "failed", "message": "expected 1, got 2", "duration_ms": 1.5,
                                     "output": "printed\n", "limit": None,
                                     "diagnosis": None}
    assert document["error"] == {"kind": "load", "message": "your code failed to load", "line": 3, "limit": None}
    assert Report.model_validate_json(text) == original


def test_invalid_statuses_are_refused() -> None:
    with pytest.raises(ValueError):
        CheckResult(id="a.b", title="t", group="a", required=True, status="ok")
    with pytest.raises(ValueError):
        Report.model_validate({"problem": "p", "solved": True, "status": "solved", "checks": []})


def test_an_experiment_with_non_finite_values_survives_a_round_trip_through_json() -> None:
    # A learner's run that diverges records nan or inf; JSON has neither, so they are gaps (None), and a stored
    # report reads back (a nan written as null once made every later read of that submission fail).
    from grader.judge import CheckContext

    context = CheckContext()
    context.record_experiment(steps=[0, 1, 2], series={"loss": [1.0, float("nan"), float("inf")]})
    assert context.experiment is not None and context.experiment.series["loss"] == [1.0, None, None]
    from grader.report import Experiment

    again = Experiment.model_validate_json(context.experiment.model_dump_json())
    assert again.series["loss"] == [1.0, None, None]


@pytest.mark.parametrize(
    ("length", "kept"),
    [
        pytest.param(0, 0, id="empty"),
        pytest.param(MAX_MESSAGE_CHARS, MAX_MESSAGE_CHARS, id="exactly-the-cap"),
        pytest.param(MAX_MESSAGE_CHARS + 1, None, id="one-over"),
        pytest.param(656_000, None, id="656-KB"),
    ],
)
def test_cap_text_keeps_a_prefix_and_counts_the_rest(length: int, kept: int | None) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(length))
    capped = cap_text(text)
    assert len(capped) <= MAX_MESSAGE_CHARS
    if kept is not None:
        assert capped == text
        return
    prefix, _, rest = capped.partition("... ")
    assert text.startswith(prefix)
    assert rest == f"{length - len(prefix)} more characters"
    assert cap_text(capped) == capped  # capping again changes nothing


def test_every_message_output_and_error_is_capped() -> None:
    long = "x" * 50_000
    check = CheckResult(id="g.c", title="t", group="g", required=True, status="failed", message=long, output=long)
    got = report([check], ReportError(kind="load", message=long))
    assert len(got.checks[0].message) <= MAX_MESSAGE_CHARS
    assert got.checks[0].message.endswith("more characters")
    assert len(got.checks[0].output) <= MAX_OUTPUT_CHARS
    assert got.checks[0].output.endswith("more characters")
    assert got.error is not None and len(got.error.message) <= MAX_MESSAGE_CHARS


def test_a_report_is_trimmed_to_its_cap_and_keeps_every_check() -> None:
    """400 checks with capped 4,000-character messages and outputs would be 3.2 MB."""
    checks = [CheckResult(id=f"g.c{i}", title="t", group="g", required=i % 2 == 0, status="failed" if i else "passed",
                          message="m" * 9000, output="o" * 9000) for i in range(400)]
    got = report(checks)
    assert len(got.model_dump_json().encode()) <= MAX_REPORT_BYTES
    assert [(c.id, c.status, c.required) for c in got.checks] == [(c.id, c.status, c.required) for c in checks]
    assert all(c.message.endswith("more characters") and c.output.endswith("more characters") for c in got.checks)
    assert (got.solved, got.status) == (False, "failed")


def test_a_small_report_is_left_as_it_is() -> None:
    check = CheckResult(id="g.c", title="t", group="g", required=True, status="failed", message="expected 1, got 2",
                        output="printed\n")
    assert report([check]).checks == [check]


def test_an_output_the_judge_already_cut_keeps_its_note() -> None:
    output = "x" * 4000 + "\n[... output truncated]"
    check = CheckResult(id="g.c", title="t", group="g", required=True, status="failed", message="m", output=output)
    assert report([check]).checks[0].output == output


@pytest.mark.parametrize(("given", "kept"), [
    pytest.param({}, "step", id="default-a-training-step"),
    pytest.param({"x_label": "rank r"}, "rank r", id="named-by-the-author"),
])
def test_an_experiment_names_its_horizontal_axis(given: dict[str, str], kept: str) -> None:
    from grader.judge import CheckContext

    context = CheckContext()
    context.record_experiment(steps=[1, 2], series={"error": [0.5, 0.25]}, **given)
    assert context.experiment is not None and context.experiment.x_label == kept
    assert f'"x_label":"{kept}"' in context.experiment.model_dump_json()


@pytest.mark.parametrize("label", ["", "x" * 41, 3])
def test_an_axis_label_is_a_short_string(label: object) -> None:
    from grader.judge import CheckContext

    with pytest.raises(ValueError, match="x_label must be a string of 1 to 40 characters"):
        CheckContext().record_experiment(steps=[1], series={"error": [0.5]}, x_label=label)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "checks, error, status",
    [
        pytest.param([result("passed"), result("skipped", required=False)], None, "failed", id="all-required-passed"),
        pytest.param([result("passed"), result("skipped")], None, "failed", id="required-stopped"),
        pytest.param([result("error", required=False), result("skipped")], None, "error", id="grader-error"),
    ],
)
def test_a_stopped_grading_without_a_told_verdict_is_not_solved(checks: list[CheckResult], error: ReportError | None,
                                                                  status: str) -> None:
    stopped = summarise(problem="adder", checks=checks, experiment=None, limits={}, sandbox="bubblewrap",
                        duration_ms=1.0, error=error, stopped=True)
    assert (stopped.solved, stopped.status, stopped.stopped) == (False, status, True)


@pytest.mark.parametrize(
    "checks, error, stopped, solved, status",
    [
        pytest.param([result("passed"), result("skipped", required=False)], None, True, True, "passed",
                     id="stopped-among-the-advisory-checks"),
        pytest.param([result("passed"), result("error", required=False)], None, False, True, "passed",
                     id="grader-broke-on-an-advisory-check"),
        pytest.param([result("passed"), result("skipped", required=False)], ReportError(kind="sandbox", message="x"),
                     False, True, "passed", id="sandbox-lost-among-the-advisory-checks"),
        pytest.param([result("passed"), result("skipped", required=False)], ReportError(kind="grader", message="x"),
                     False, True, "passed", id="grader-failed-after-the-verdict"),
        pytest.param([result("passed"), result("failed")], None, False, False, "failed", id="a-failed-required-check"),
        pytest.param([result("passed"), result("skipped")], None, True, False, "failed", id="a-skipped-required-check"),
        pytest.param([], None, False, False, "failed", id="no-checks"),
    ],
)
def test_a_told_verdict_stands_whatever_came_after_but_never_against_a_required_check(
        checks: list[CheckResult], error: ReportError | None, stopped: bool, solved: bool, status: str) -> None:
    got = summarise(problem="adder", checks=checks, experiment=None, limits={}, sandbox="bubblewrap",
                    duration_ms=1.0, error=error, stopped=stopped, verdict=True)
    assert (got.solved, got.status, got.stopped) == (solved, status, stopped)


def test_a_report_stored_before_the_stop_button_reads_as_not_stopped() -> None:
    # Reports in databases predate the field: the JSON contract only gained it, with a default.
    document = json.loads(report([result("passed")]).model_dump_json())
    assert document["stopped"] is False
    del document["stopped"]
    old = Report.model_validate(document)
    assert old.stopped is False and old.solved is True


@pytest.mark.parametrize("label", ["t", "x" * 40])
def test_an_axis_label_of_one_to_forty_characters_is_kept(label: str) -> None:
    from grader.judge import CheckContext

    context = CheckContext()
    context.record_experiment(steps=[1], series={"error": [0.5]}, x_label=label)
    assert context.experiment is not None and context.experiment.x_label == label
