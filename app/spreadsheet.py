"""CSV that a spreadsheet program opens as data, never as formulas: the writer every tabular export uses (the
instructor's export today, a course gradebook tomorrow).

Spreadsheet programs run a cell that begins with `=`, `+`, `-` or `@` as a formula (`=HYPERLINK(...)` sends
the sheet's contents to another site when clicked; DDE payloads start programs), and some read a cell that
begins with a tab or a carriage return the same way once they trim it. Following OWASP's guidance on CSV
injection, a *text* cell that begins with one of those (after any leading whitespace, since some programs trim
it) is written with a single quote in front, which spreadsheets take to mean "text", and every text cell is
quoted, so a `,` or `;` inside a value cannot start a new cell that begins with a formula. A NUL, which some
programs also treat as a cell's start, is neutralised the same way.

*Numbers are written as numbers*: a cell whose value is an `int` or a `float` (not a string that looks like
one) goes out unquoted and unprefixed, so a column of counts, scores or deltas, negative ones included, sorts
and sums in the spreadsheet. Only the exporter decides a column is numeric, by handing over numbers; anything a
learner typed is a string, and a student id typed as `-12` is exported as the text `'-12`. Booleans are
written `True`/`False`, dates as the exporter formats them (ISO 8601 strings), `None` as an empty cell.

JSON exports need none of this: nothing executes JSON. The quote is a change to what the learner wrote, so
it belongs to the CSV, never to the stored value."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence

Cell = str | int | float | bool | None

# A text cell that begins with one of these is a formula to some spreadsheet program (OWASP: = + - @, tab and
# carriage return; the ASVS adds NUL).
FORMULA_STARTS = frozenset("=+-@\t\r\0")
TEXT_PREFIX = "'"
BOM = "\ufeff"  # spreadsheet programs read UTF-8 (accented names) only with it
LINE_END = "\r\n"  # RFC 4180
BATCH_ROWS = 1000


def is_formula(text: str) -> bool:
    """True when a spreadsheet could run `text` as a formula: it begins with one of FORMULA_STARTS, or does so
    after leading whitespace."""
    return bool(text) and (text[0] in FORMULA_STARTS or text.lstrip()[:1] in FORMULA_STARTS)


def neutralise(value: Cell) -> str | int | float:
    """The value to write for one cell: numbers as they are, text with a quote in front when it could run."""
    if value is None:
        return ""
    if isinstance(value, bool):  # before int: bool is an int to Python, a word to a reader of the sheet
        return str(value)
    if isinstance(value, int | float):
        return value
    return TEXT_PREFIX + value if is_formula(value) else value


def csv_stream(
    columns: Sequence[str], rows: Iterable[Mapping[str, Cell]], *, batch_rows: int = BATCH_ROWS
) -> Iterator[str]:
    """The CSV text of `rows` (each a mapping from column name to value), in chunks of `batch_rows` rows: a
    byte order mark, a header row, CRLF line ends, every text cell of the rows quoted and neutralised, numbers
    bare. A row may not hold a key that is not a column (a misspelt column must not vanish silently)."""
    buffer = io.StringIO()
    # QUOTE_NONNUMERIC quotes every str and leaves int and float bare: text stays text, numbers stay numbers.
    writer = csv.writer(buffer, quoting=csv.QUOTE_NONNUMERIC, lineterminator=LINE_END)
    buffer.write(BOM)
    # The header is the exporter's own names, written as readers of earlier exports know it (quoted only when
    # a name needs it); they go through the same rule all the same.
    csv.writer(buffer, lineterminator=LINE_END).writerow([neutralise(name) for name in columns])
    known = set(columns)
    for count, row in enumerate(rows, start=1):
        unknown = row.keys() - known
        if unknown:
            raise ValueError(f"row has values for {sorted(unknown)}, which are not columns of this export")
        writer.writerow([neutralise(row.get(name)) for name in columns])
        if count % batch_rows == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
