"""A `|` inside inline maths in a Markdown table row splits the cell: the row renders as broken cells and a stray
`$`. Problems write \\lvert ... \\rvert (or \\mid) there instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.problems import PROBLEMS_DIR

PAGES = sorted(PROBLEMS_DIR.glob("*/*.md"))
INLINE_MATH = re.compile(r"(?<!\$)\$(?!\$)([^$]+)\$")


def test_there_are_pages() -> None:
    assert len(PAGES) > 20


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(PROBLEMS_DIR)) for p in PAGES])
def test_no_table_cell_holds_a_pipe_inside_maths(page: Path) -> None:
    broken = [
        f"{page.name}:{number}: {line.strip()}"
        for number, line in enumerate(page.read_text().splitlines(), start=1)
        if line.lstrip().startswith("|") and any("|" in math for math in INLINE_MATH.findall(line))
    ]
    assert not broken, "\n".join(broken)
