"""The solution policy: the reference solution and the notes' common mistakes are readable after solving, or
after the learner gives up explicitly once they have failed REVEAL_AFTER_FAILED times. Giving up is
recorded (the attempts page shows it) and a solve after it is marked "after reveal"; it still counts."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.errors import Forbidden
from app.markdown import highlight_code, render_markdown
from app.models import SolutionReveal
from app.progress import failed_attempts, reveal_of, solved_after_reveal, solved_at
from grader import Problem

# Three honest tries: enough to have met the problem, few enough that nobody stays stuck for an evening.
REVEAL_AFTER_FAILED = 3
# The notes' section on mistakes ("## The mistakes people actually make", "## Mistakes the checks look for").
MISTAKES_HEADING = re.compile(r"^## .*mistake", re.IGNORECASE | re.MULTILINE)


class SolutionLocked(Forbidden):
    title = "The solution is locked"


class SolutionOut(BaseModel):
    problem: str
    access: Literal["solved", "revealed"] = Field(description="Why this learner may read it.")
    file: str = Field(description="solution.py when the author wrote one for learners, else reference.py.")
    code: str = Field(description="The solution learners read: solution.py, else the reference without its "
                      "`# private:` comments.")
    code_html: str = Field(description="The same, highlighted (Pygments classes).")
    common_mistakes_html: str = Field(description="The notes' section on common mistakes, rendered; may be empty.")
    revealed_at: datetime | None
    solved_after_reveal: bool


class SolutionAccess(BaseModel):
    """Where the learner stands with the solution, for the page that offers it."""

    readable: bool
    solved: bool
    revealed_at: datetime | None
    failed_attempts: int
    reveal_after: int = REVEAL_AFTER_FAILED

    @property
    def can_reveal(self) -> bool:
        return not self.readable and self.failed_attempts >= self.reveal_after


def common_mistakes(notes: str) -> str:
    """The Markdown of the notes' mistakes section (heading included), or "" when the notes have none."""
    match = MISTAKES_HEADING.search(notes)
    if match is None:
        return ""
    rest = notes[match.end() :]
    following = re.search(r"^## ", rest, re.MULTILINE)
    return notes[match.start() : match.end() + (following.start() if following else len(rest))].strip()


def access_of(*, session: Session, learner_id: str, problem: Problem) -> SolutionAccess:
    solved = solved_at(session=session, learner_id=learner_id, problem=problem.slug) is not None
    reveal = reveal_of(session=session, learner_id=learner_id, problem=problem.slug)
    return SolutionAccess(
        readable=solved or reveal is not None,
        solved=solved,
        revealed_at=reveal.revealed_at if reveal else None,
        failed_attempts=failed_attempts(session=session, learner_id=learner_id, problem=problem.slug),
    )


def read_solution(*, session: Session, learner_id: str, problem: Problem) -> SolutionOut:
    access = access_of(session=session, learner_id=learner_id, problem=problem)
    if not access.readable:
        raise SolutionLocked(_locked_message(access))
    solved = solved_at(session=session, learner_id=learner_id, problem=problem.slug)
    code = problem.solution_source()
    return SolutionOut(
        problem=problem.slug,
        file=problem.solution_file,
        access="solved" if access.solved and not solved_after_reveal(solved, access.revealed_at) else "revealed",
        code=code,
        code_html=highlight_code(code, "python"),
        common_mistakes_html=render_markdown(common_mistakes(problem.notes)),
        revealed_at=access.revealed_at,
        solved_after_reveal=solved_after_reveal(solved, access.revealed_at),
    )


def reveal_solution(*, session: Session, learner_id: str, problem: Problem) -> SolutionOut:
    """Gives up on the problem (recorded once) and returns the solution. A learner who solved it needs no
    reveal: nothing is recorded then."""
    access = access_of(session=session, learner_id=learner_id, problem=problem)
    if not access.readable:
        if not access.can_reveal:
            raise SolutionLocked(_locked_message(access))
        crud.ensure_learner(session=session, learner_id=learner_id)
        session.add(
            SolutionReveal(learner_id=learner_id, problem=problem.slug, failed_attempts=access.failed_attempts)
        )
        try:
            session.commit()
        except IntegrityError:  # revealed from another tab at the same moment
            session.rollback()
    return read_solution(session=session, learner_id=learner_id, problem=problem)


def _locked_message(access: SolutionAccess) -> str:
    if access.failed_attempts >= access.reveal_after:
        return "Solve the problem to read the solution, or give up explicitly (POST .../solution/reveal)."
    left = access.reveal_after - access.failed_attempts
    return (
        f"The solution opens once you solve the problem, or after {access.reveal_after} failed attempts if you "
        f"choose to give up; you have {access.failed_attempts}, so {left} more to go."
    )
