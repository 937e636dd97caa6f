"""Late policies and what a solve scores under them. Pure functions of times: the gradebook, the learner's pages
and the LTI passback all score through `problem_score`, so they never disagree.

Lateness is counted in started days after the due time in force (the assignment's, or the learner's extension):
a solve one minute late is one day late. It is derived from the stored time of the solving attempt (when the
learner pressed Run, not when the grader finished), so an extension granted afterwards re-scores the work."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

LatePolicyKind = Literal["none", "penalty"]
DAY = timedelta(days=1)


@dataclass(frozen=True)
class LatePolicy:
    kind: LatePolicyKind
    penalty_percent: int = 0
    floor_percent: int = 0

    def kept_share(self, days_late: int) -> float:
        """The share of a problem's point a solve `days_late` started days late keeps (1.0 when on time)."""
        if days_late <= 0:
            return 1.0
        if self.kind == "none":
            return 0.0
        return max(self.floor_percent, 100 - self.penalty_percent * days_late) / 100

    def describe(self) -> str:
        """The policy in one sentence, as the assignment page states it."""
        if self.kind == "none":
            return "Work solved after the due time is recorded as late and earns no points."
        if self.penalty_percent == 0:
            return "Work solved after the due time is recorded as late and keeps its full score."
        floor = f", down to {self.floor_percent}%" if self.floor_percent > 0 else ", down to nothing"
        return (f"Work solved after the due time loses {self.penalty_percent}% of its score per started day "
                f"late{floor}.")


def days_late(solved_at: datetime, due_at: datetime) -> int:
    """Started days after `due_at` (0 when on time or early)."""
    if solved_at <= due_at:
        return 0
    return math.ceil((solved_at - due_at) / DAY)


def problem_score(*, policy: LatePolicy, solved_at: datetime | None, due_at: datetime,
                  override_percent: float | None = None) -> float:
    """The share of one problem's point earned: an override when there is one, else the policy applied to the
    first solve (later solves are later still, so the first scores best); 0.0 while unsolved."""
    if override_percent is not None:
        return override_percent / 100
    if solved_at is None:
        return 0.0
    return policy.kept_share(days_late(solved_at, due_at))
