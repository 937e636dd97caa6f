"""`python -m grader preview SLUG`: a problem as learners will meet it, without the web app.

One warm pool grades the reference, the starter and every mutant; the terminal shows the statement (Markdown
laid out for a terminal, TeX left as written), the hints and their thresholds, the clauses no required check
tests, the two grades, and the first failure each mutant's author would read. It is the author's loop between
edits; `selftest` is the proof.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from grader.problems import Problem
from grader.report import Report
from grader.selftest import MutantMessage, first_failure, mutant_messages

Grade = Callable[[Problem, str], Report]

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


@dataclass(frozen=True)
class Preview:
    problem: Problem
    reference: Report
    starter: Report
    mutants: list[MutantMessage]

    @property
    def problems_found(self) -> list[str]:
        """What stops the problem being sound as learners would feel it; empty when it is fine."""
        found = []
        if not self.reference.solved:
            check, _, message = first_failure(self.reference)
            first_line = message.splitlines()[0] if message else ""
            found.append(f"the reference is not solved: {check or 'load'}: {first_line}")
        if self.starter.solved:
            found.append("the starter is solved: a learner would pass without writing anything")
        found.extend(f"no check fails on mutant {m.name}" for m in self.mutants if not m.check and not m.title)
        found.extend(f"clause {clause} is tested by no required check" for clause in uncovered_clauses(self.problem))
        return found


def uncovered_clauses(problem: Problem) -> list[str]:
    covered = {clause for check in problem.checks if check.required for clause in check.clauses}
    return [clause.id for clause in problem.clauses if clause.id not in covered]


def build_preview(problem: Problem, grade: Grade) -> Preview:
    """Grade the reference, the starter and every mutant (MutantError on a malformed one, with file:line)."""
    reference = grade(problem, problem.reference_source())
    starter = grade(problem, problem.starter)
    return Preview(problem, reference, starter, mutant_messages(problem, grade))


# ---------------------------------------------------------------------------------------------- statement


def render_statement(markdown: str, *, width: int = 100, bold: Callable[[str], str] = lambda s: s) -> str:
    """Markdown laid out for a terminal: headings emphasised, paragraphs and list items wrapped to `width`,
    code blocks, tables and displayed math ($$ ... $$) kept exactly as written (a learner's browser renders
    them; here the author needs to read what was typed)."""
    out: list[str] = []
    paragraph: list[str] = []
    item: tuple[str, str, list[str]] | None = None  # (indent, marker, words)

    def flush() -> None:
        nonlocal item
        if paragraph:
            out.extend(textwrap.wrap(_inline(" ".join(paragraph), bold), width) or [""])
            paragraph.clear()
        if item is not None:
            indent, marker, words = item
            out.extend(textwrap.wrap(_inline(" ".join(words), bold), width, initial_indent=f"{indent}{marker} ",
                                     subsequent_indent=" " * (len(indent) + len(marker) + 1)))
            item = None

    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line) or line.strip().startswith("$$"):
            flush()
            closing = "$$" if line.strip().startswith("$$") else _FENCE.match(line).group(1)  # type: ignore[union-attr]
            block = [line]
            single_line_math = closing == "$$" and line.strip() != "$$" and line.strip().endswith("$$")
            while not single_line_math and index + 1 < len(lines):
                index += 1
                block.append(lines[index])
                text = lines[index].strip()
                if text.startswith(closing) or (closing == "$$" and text.endswith("$$")):
                    break
            out.extend(f"    {text}" for text in block)
        elif not line.strip():
            flush()
            if out and out[-1] != "":
                out.append("")
        elif heading := _HEADING.match(line):
            flush()
            if out and out[-1] != "":
                out.append("")
            title = heading.group(2)
            out.append(bold(title.upper() if len(heading.group(1)) == 1 else title))
            out.append(("=" if len(heading.group(1)) == 1 else "-") * min(len(title), width))
        elif line.lstrip().startswith("|"):
            flush()
            out.append(line)
        elif list_item := _LIST_ITEM.match(line):
            flush()
            item = (list_item.group(1), list_item.group(2), [list_item.group(3)])
        elif item is not None:
            item[2].append(line.strip())
        else:
            paragraph.append(line.strip())
        index += 1
    flush()
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _inline(text: str, bold: Callable[[str], str]) -> str:
    return _BOLD.sub(lambda match: bold(match.group(1)), text)


# ---------------------------------------------------------------------------------------------- the whole


def render_preview(preview: Preview, *, width: int = 100, color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    def bold(text: str) -> str:
        return paint(text, "1")

    problem = preview.problem
    spec = problem.spec
    out = io.StringIO()

    def section(title: str) -> None:
        out.write(f"\n{paint('== ' + title + ' ', '1;36')}{paint('=' * max(0, width - len(title) - 4), '36')}\n")

    out.write(bold(f"{spec.title}") + f"  ({spec.slug}, {spec.difficulty}; {', '.join(spec.tags) or 'no tags'})\n")
    out.write(f"{spec.summary}\n")
    for function in spec.functions:
        out.write(f"  {bold(function.signature)}" + (f"  {function.summary}" if function.summary else "") + "\n")

    section("statement (as the problem page shows it; TeX as written)")
    out.write(render_statement(problem.statement, width=width, bold=bold))

    section("hints")
    if not problem.hints:
        out.write("none: give learners two or three, each naming an idea, not code\n")
    for hint in problem.hints:
        lead = f"after {hint.after_attempts} failed attempt(s): "
        out.write(textwrap.fill(hint.text, width, initial_indent=lead, subsequent_indent=" " * len(lead)) + "\n")

    uncovered = uncovered_clauses(problem)
    section("contract")
    if not problem.clauses:
        out.write("no [[clauses]] in problem.toml\n")
    else:
        tested = len(problem.clauses) - len(uncovered)
        out.write(f"{tested}/{len(problem.clauses)} clauses tested by a required check\n")
        for clause in uncovered:
            out.write(paint(f"  untested: {clause}", "31") + "\n")

    section("grades")
    for label, report, wanted in (("reference", preview.reference, True), ("starter", preview.starter, False)):
        verdict = "SOLVED" if report.solved else "NOT SOLVED"
        good = report.solved == wanted
        out.write(f"{label:<10} {paint(verdict, '1;32' if good else '1;31')}: "
                  f"{report.passed_count} / {len(report.checks)} checks passed in {report.duration_ms:.0f} ms\n")
        if report.solved != wanted or not report.solved:
            check, title, message = first_failure(report)
            if check or title:
                out.write(f"           first failure: {check or title}\n")
                for line in message.splitlines()[:6]:
                    out.write(f"             | {line}\n")

    section(f"what a learner with each mutant reads first ({len(preview.mutants)})")
    for mutant in preview.mutants:
        out.write(bold(mutant.name) + (f"  ({mutant.description})" if mutant.description else "") + "\n")
        if mutant.check or mutant.title:
            out.write(f"  {mutant.check or mutant.title}: {mutant.title if mutant.check else ''}".rstrip() + "\n")
        else:
            out.write(paint("  no check fails on it", "1;31") + "\n")
        for line in (mutant.message or "(no message)").splitlines():
            out.write(f"    | {line}\n")
        out.write("\n")

    found = preview.problems_found
    if found:
        out.write(paint(f"{spec.slug}: {len(found)} thing(s) to fix", "1;31") + "\n")
        out.writelines(f"  - {item}\n" for item in found)
    else:
        out.write(paint(f"{spec.slug}: reads as a learner should see it (run selftest for the proof)", "1;32") + "\n")
    return out.getvalue()
