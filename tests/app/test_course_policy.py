"""Late policies, as a table: started days late, the share a late solve keeps, and the sentence the page shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.courses.policy import LatePolicy, days_late, problem_score

DUE = datetime(2027, 3, 1, 17, 0, tzinfo=UTC)


@pytest.mark.parametrize(("after", "days"), [
    pytest.param(timedelta(hours=-1), 0, id="early"),
    pytest.param(timedelta(0), 0, id="at-the-due-time"),
    pytest.param(timedelta(minutes=1), 1, id="one-minute-late-is-a-day"),
    pytest.param(timedelta(days=1), 1, id="exactly-a-day"),
    pytest.param(timedelta(days=1, seconds=1), 2, id="a-day-and-a-second"),
])
def test_days_late_counts_started_days(after: timedelta, days: int) -> None:
    assert days_late(DUE + after, DUE) == days


@pytest.mark.parametrize(("policy", "days", "share"), [
    pytest.param(LatePolicy("none"), 0, 1.0, id="none-on-time"),
    pytest.param(LatePolicy("none"), 1, 0.0, id="none-late"),
    pytest.param(LatePolicy("penalty", 10, 50), 2, 0.8, id="ten-percent-a-day"),
    pytest.param(LatePolicy("penalty", 10, 50), 9, 0.5, id="down-to-the-floor"),
    pytest.param(LatePolicy("penalty", 0, 0), 30, 1.0, id="no-penalty"),
    pytest.param(LatePolicy("penalty", 100, 0), 1, 0.0, id="all-at-once"),
])
def test_the_share_a_late_solve_keeps(policy: LatePolicy, days: int, share: float) -> None:
    assert policy.kept_share(days) == pytest.approx(share)


@pytest.mark.parametrize(("policy", "sentence"), [
    (LatePolicy("none"), "Work solved after the due time is recorded as late and earns no points."),
    (LatePolicy("penalty", 10, 50),
     "Work solved after the due time loses 10% of its score per started day late, down to 50%."),
    (LatePolicy("penalty", 25, 0),
     "Work solved after the due time loses 25% of its score per started day late, down to nothing."),
    (LatePolicy("penalty", 0, 0), "Work solved after the due time is recorded as late and keeps its full score."),
])
def test_the_policy_is_stated_in_words(policy: LatePolicy, sentence: str) -> None:
    assert policy.describe() == sentence


def test_an_override_wins_over_the_policy_and_unsolved_scores_nothing() -> None:
    policy = LatePolicy("none")
    assert problem_score(policy=policy, solved_at=DUE + timedelta(days=3), due_at=DUE, override_percent=70) == 0.7
    assert problem_score(policy=policy, solved_at=None, due_at=DUE) == 0.0
    assert problem_score(policy=policy, solved_at=DUE, due_at=DUE) == 1.0
