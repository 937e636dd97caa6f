"""`python -m grader preview SLUG`: the statement laid out for a terminal, the grades of the reference and the
starter, the first message of every mutant, and what to fix; exit 0 when nothing needs fixing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.__main__ import main
from grader.preview import render_statement
from grader.scaffold import create_problem

STATEMENT = """# Title

A paragraph that is long enough to be wrapped at the width we ask for, with **bold** words and $x_i$ kept.

## Contract

- a list item that is also long enough to need a second line when wrapped,
  continued here
- short

$$L = \\frac{1}{B}
  \\sum_i \\ell_i$$

```python
x  =  1   # spacing kept
```

| a | b |
| --- | --- |
"""


@pytest.fixture
def rendered() -> list[str]:
    return render_statement(STATEMENT, width=40, bold=lambda text: f"<{text}>").splitlines()


def test_a_top_heading_is_emphasised_and_underlined(rendered: list[str]) -> None:
    assert rendered[:2] == ["<TITLE>", "====="]


def test_paragraphs_wrap_at_the_width_and_keep_inline_tex(rendered: list[str]) -> None:
    paragraph = rendered[3:rendered.index("<Contract>") - 1]
    assert all(len(line) <= 40 for line in paragraph)
    assert "<bold> words and $x_i$ kept." in " ".join(paragraph)


def test_list_items_wrap_with_a_hanging_indent(rendered: list[str]) -> None:
    start = rendered.index("- a list item that is also long enough")
    assert rendered[start + 1].startswith("  ") and "continued here" in " ".join(rendered[start : start + 3])
    assert "- short" in rendered


@pytest.mark.parametrize("kept", ["    $$L = \\frac{1}{B}", "      \\sum_i \\ell_i$$", "    x  =  1   # spacing kept",
                                  "| a | b |"])
def test_math_code_and_tables_are_kept_exactly(rendered: list[str], kept: str) -> None:
    assert kept in rendered


@pytest.fixture
def scaffolded(tmp_path: Path) -> Path:
    return create_problem("sample", tmp_path / "problems")


def test_preview_shows_the_statement_both_grades_and_every_mutants_first_message(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["preview", str(scaffolded), "--unsafe-no-sandbox", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "SAMPLE" in out and "normalize_rows(x)" in out and "$$\\hat x_i" in out
    assert "reference  SOLVED:" in out and "starter    NOT SOLVED:" in out
    for mutant in sorted((scaffolded / "mutants").glob("*.py")):
        block = out.split(f"\n{mutant.name}  (")[1].splitlines()
        assert re.match(r"  [a-z_]+(\.[a-z_]+)+: ", block[1]) and block[2].startswith("    | "), block[:3]
    assert out.rstrip().endswith("sample: reads as a learner should see it (run selftest for the proof)")


def test_preview_exits_1_and_lists_an_uncaught_mutant_and_an_untested_clause(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(scaffolded / "reference.py", scaffolded / "mutants" / "correct_after_all.py")
    with (scaffolded / "problem.toml").open("a") as toml:
        toml.write('\n[[clauses]]\nid = "normalize_rows.promise"\ntext = "a promise no check tests"\n')
    assert main(["preview", str(scaffolded), "--unsafe-no-sandbox"]) == 1
    out = capsys.readouterr().out
    assert "  untested: normalize_rows.promise" in out
    assert out.rstrip().splitlines()[-3:] == [
        "sample: 2 thing(s) to fix",
        "  - no check fails on mutant correct_after_all.py",
        "  - clause normalize_rows.promise is tested by no required check",
    ]


def test_preview_of_a_folder_that_does_not_load_exits_2_with_the_file_and_line(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scaffolded / "checks.py").write_text("import torch\n\nraise RuntimeError('not yet')\n")
    assert main(["preview", str(scaffolded), "--unsafe-no-sandbox"]) == 2
    assert f"{scaffolded / 'checks.py'}:3: failed to import: RuntimeError: not yet" in capsys.readouterr().err
