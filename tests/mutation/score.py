"""The mutation score per module, from mutmut's results in mutants/, against the reviewed equivalents.

    python -m tests.mutation.score             # after `mutmut run`: table, exit 1 below the target
    python -m tests.mutation.score --sample    # after a sampled run: only the mutants it ran are judged

A mutant is *killed* when a test failed (or timed out) with it applied, *equivalent* when it survived and
tests/mutation/equivalent.toml explains why no test can tell it from the original, and *survived* otherwise.
A full run fails when a module kills under TARGET of its mutants, when a survivor is not a reviewed equivalent,
or when a listed equivalent no longer survives or no longer is the mutation it says (the list must stay true).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

TARGET = 97.0  # percent of each module's mutants the tests must kill
ROOT = Path(__file__).resolve().parents[2]
EQUIVALENTS = Path(__file__).with_name("equivalent.toml")

# mutmut 3.8's exit codes (mutmut/stats.py): what each means for the score.
KILLED = {1, 3}  # a test failed; pytest's internal error also counts as a kill in mutmut
TIMEOUT = {36, -24, 24, 152, 255}  # the tests hung or ran out of CPU with the mutant: caught
SURVIVED = {0}
NOT_RUN = {None, 34}  # not checked (outside a sample), skipped
NO_TESTS = {5, 33}  # no selected test reaches the mutated function: a gap in the tests, counted as survived


class Equivalent(BaseModel):
    """One reviewed mutant that no test can kill: the same behaviour by another route."""

    model_config = ConfigDict(extra="forbid")

    mutant: str  # mutmut's name, e.g. grader.checks.x__tensor_mismatch__mutmut_12
    line: int  # the original line in the module (1-based), checked against the source
    original: str  # that line, stripped
    mutation: str  # the mutated line, stripped, as mutmut's diff shows it
    why: str


@dataclass
class Score:
    module: str
    killed: int = 0
    timeout: int = 0
    equivalent: int = 0
    survived: list[str] = field(default_factory=list)
    not_run: int = 0

    @property
    def judged(self) -> int:
        return self.killed + self.timeout + self.equivalent + len(self.survived)

    @property
    def percent(self) -> float:
        return 100.0 * (self.killed + self.timeout) / self.judged if self.judged else 100.0


def modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(config["only_mutate"])


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, Equivalent]:
    entries = [Equivalent.model_validate(e) for e in tomllib.loads(path.read_text()).get("equivalent", [])]
    by_name = {e.mutant: e for e in entries}
    if len(by_name) != len(entries):
        raise SystemExit(f"{path}: a mutant is listed twice")
    return by_name


def exit_codes(module: str) -> dict[str, int | None]:
    meta = ROOT / "mutants" / f"{module}.meta"
    if not meta.exists():
        raise SystemExit(f"{meta} is missing: run `mutmut run` first (make mutation)")
    codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    return codes


def score(module: str, codes: dict[str, int | None], equivalents: dict[str, Equivalent]) -> Score:
    result = Score(module)
    for name, code in sorted(codes.items()):
        if code in KILLED:
            result.killed += 1
        elif code in TIMEOUT and name in equivalents:  # a slower equivalent (no fast path) on a loaded machine
            result.equivalent += 1
        elif code in TIMEOUT:
            result.timeout += 1
        elif code in NOT_RUN:
            result.not_run += 1
        elif code in SURVIVED and name in equivalents:
            result.equivalent += 1
        else:  # survived, no tests, suspicious, segfault: nothing caught it
            result.survived.append(name)
    return result


def moved_equivalents(equivalents: dict[str, Equivalent]) -> list[str]:
    """Entries whose line number is out of date (an edit above moved the code): worth updating, not a failure,
    since the diff check below still proves the entry is the mutation it says."""
    notes = []
    for name, entry in equivalents.items():
        module = name.rsplit(".", 1)[0].replace(".", "/") + ".py"
        lines = [line.strip() for line in (ROOT / module).read_text().splitlines()]
        if not 0 < entry.line <= len(lines) or lines[entry.line - 1] != entry.original:
            now = [str(i + 1) for i, line in enumerate(lines) if line == entry.original]
            notes.append(f"{name}: `{entry.original}` is no longer line {entry.line} of {module} "
                         f"(now {', '.join(now) or 'nowhere'}); update the entry")
    return notes


def stale_equivalents(equivalents: dict[str, Equivalent], codes: dict[str, int | None],
                      diffs: dict[str, str]) -> list[str]:
    """Listed equivalents that are no longer true: killed now, gone, or another mutation under the same name."""
    problems = []
    for name, entry in equivalents.items():
        module = name.rsplit(".", 1)[0].replace(".", "/") + ".py"
        if entry.original not in {line.strip() for line in (ROOT / module).read_text().splitlines()}:
            problems.append(f"{name}: {module} no longer has the line `{entry.original}`")
        code = codes.get(name, "missing")
        if code == "missing":
            problems.append(f"{name}: mutmut made no such mutant (renumbered? re-review it)")
        elif code in KILLED:  # a timeout is not a kill here: an equivalent may just be slower under load
            problems.append(f"{name}: listed as equivalent but a test kills it now; remove it from the list")
        diff = diffs.get(name)
        if diff is not None and not _diff_is(diff, entry):
            problems.append(f"{name}: its diff is no longer `{entry.original}` -> `{entry.mutation}`:\n{diff}")
    return problems


def _diff_is(diff: str, entry: Equivalent) -> bool:
    removed = [line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return entry.original in removed and entry.mutation in added


def mutant_diffs(names: Iterable[str]) -> dict[str, str]:
    """mutmut's own diff of each named mutant (read from mutants/, as `mutmut show` prints it)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # the pinned 3.8 API `mutmut show` uses

    diffs = {}
    for name in names:
        module = name.rsplit(".", 1)[0].replace(".", "/") + ".py"
        try:
            diffs[name] = get_diff_for_mutant(name, path=module)
        except Exception as exc:  # noqa: BLE001 - a name mutmut no longer makes is reported as stale above
            diffs[name] = f"(no diff: {exc})"
    return diffs


def table(scores: list[Score]) -> str:
    rows = [f"{'module':<30} {'killed':>7} {'timeout':>8} {'equiv.':>7} {'survived':>9} {'judged':>7} {'% killed':>9}"]
    for s in scores:
        rows.append(f"{s.module:<30} {s.killed:>7} {s.timeout:>8} {s.equivalent:>7} {len(s.survived):>9} "
                    f"{s.judged:>7} {s.percent:>8.1f}%")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", action="store_true",
                        help="judge only the mutants the run checked; every one must be killed or a listed equivalent")
    args = parser.parse_args(argv)

    equivalents = load_equivalents()
    codes_by_module = {module: exit_codes(module) for module in modules()}
    scores = [score(module, codes, equivalents) for module, codes in codes_by_module.items()]
    sys.stdout.write(table(scores) + "\n")
    all_codes = {name: code for codes in codes_by_module.values() for name, code in codes.items()}

    failures = []
    for s in scores:
        if not args.sample and s.not_run:
            failures.append(f"{s.module}: {s.not_run} mutants were not run")
        if not args.sample and s.percent < TARGET:
            failures.append(f"{s.module}: {s.percent:.1f}% killed, under the target of {TARGET:g}%")
        for name in s.survived:
            failures.append(f"{name} survived (`mutmut show {name}`): kill it with a test or review it into "
                            f"{EQUIVALENTS.relative_to(ROOT)}")
    if not args.sample:
        failures += stale_equivalents(equivalents, all_codes, mutant_diffs(equivalents))
    else:  # a sample checks the entries it ran
        ran = {name: code for name, code in all_codes.items() if code not in NOT_RUN}
        failures += stale_equivalents({n: e for n, e in equivalents.items() if n in ran}, ran,
                                      mutant_diffs(n for n in equivalents if n in ran))
    for note in moved_equivalents(equivalents):
        sys.stderr.write(f"NOTE {note}\n")
    for failure in failures:
        sys.stderr.write(f"FAIL {failure}\n")
    if not failures:
        sys.stdout.write("mutation: every sampled mutant killed or a reviewed equivalent\n" if args.sample else
                         f"mutation: every module at or above {TARGET:g}% and every survivor a reviewed equivalent\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
