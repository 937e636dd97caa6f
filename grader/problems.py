"""Load and validate a problem folder: problem.toml, statement, starter, reference, checks, notes."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import io
import re
import sys
import tokenize
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from grader.checks import CLAUSE_ID_PATTERN, Check, collect_checks, collect_legal_inputs
from grader.contract.build import build_battery
from grader.contract.clauses import GeneratedClause
from grader.contract.schema import FunctionContract
from grader.diagnose import Diagnoser
from grader.errors import AuthoringError
from grader.helpers_import import HELPERS_MODULE, importable_as_helpers
from grader.limits import Limits

PROBLEMS_DIR = Path(__file__).resolve().parent.parent / "problems"
SLUG_PATTERN = r"^[a-z][a-z0-9_-]{0,39}$"
# A library function by its dotted import path, at least "module.name", e.g. "torch.nn.functional.softmax".
DOTTED_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$"
MAX_HINTS = 3


class ProblemError(AuthoringError):
    """A problem folder is missing a file or has an invalid one; the message names the file and line."""


# The keys of a [[functions]] table that declare its contract (grader.contract.schema.FunctionContract).
CONTRACT_KEYS = frozenset(FunctionContract.model_fields)


class FunctionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    signature: str = Field(description="Shown to learners, e.g. 'moco_loss(query, key, queue, temperature)'.")
    summary: str = ""
    contract: FunctionContract | None = Field(None, description="args, result, dims, ...: written beside the name "
                                              "in problem.toml and gathered here")

    @model_validator(mode="before")
    @classmethod
    def _gather_contract(cls, data: Any) -> Any:
        """problem.toml writes [functions.args], [functions.result], [functions.dims] beside the name; they are
        one FunctionContract."""
        if not isinstance(data, dict) or "contract" in data:
            return data
        declared = {key: data[key] for key in data if key in CONTRACT_KEYS}
        if not declared:
            return data
        rest = {key: value for key, value in data.items() if key not in CONTRACT_KEYS}
        return {**rest, "contract": declared}


class ClauseSpec(BaseModel):
    """One clause of the contract: an id that checks cite (`@check(..., clauses=[id])`) and one line that says
    the same as the statement does."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=CLAUSE_ID_PATTERN, max_length=80)
    text: str = Field(min_length=1, max_length=300)

    @field_validator("text")
    @classmethod
    def _one_line(cls, text: str) -> str:
        if "\n" in text.strip():
            raise ValueError("a clause is one line; split a longer rule into several clauses")
        return text.strip()


class HintSpec(BaseModel):
    """A hint the learner can open after `after_attempts` failed attempts at the problem (0: from the start)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=600)
    after_attempts: int = Field(ge=0, le=1000)


class ProblemSpec(BaseModel):
    """The schema of problem.toml."""

    model_config = ConfigDict(extra="forbid")

    slug: str = Field(pattern=SLUG_PATTERN)
    title: str = Field(min_length=1, max_length=120)
    summary: str = Field(min_length=1, max_length=400)
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str] = Field(default_factory=list)
    functions: list[FunctionSpec] = Field(min_length=1)
    required_groups: list[str] = Field(min_length=1, description="Check groups whose checks decide `solved`.")
    limits: Limits = Field(default_factory=Limits)
    clauses: list[ClauseSpec] = Field(default_factory=list, description="The contract, one checkable line each.")
    hints: list[HintSpec] = Field(default_factory=list, max_length=MAX_HINTS,
                                  description="Progressive hints, from the nudge to the near-answer.")
    banned_calls: list[str] = Field(default_factory=list,
                                    description="Dotted names of library functions a solution must not call.")

    @field_validator("clauses")
    @classmethod
    def _unique_clauses(cls, clauses: list[ClauseSpec]) -> list[ClauseSpec]:
        ids = [c.id for c in clauses]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"clause ids must be unique; repeated: {', '.join(repeated)}")
        return clauses

    @field_validator("hints")
    @classmethod
    def _hints_in_order(cls, hints: list[HintSpec]) -> list[HintSpec]:
        thresholds = [h.after_attempts for h in hints]
        if thresholds != sorted(thresholds):
            raise ValueError(f"hints unlock in order: after_attempts must not decrease, got {thresholds}")
        return hints

    @field_validator("banned_calls")
    @classmethod
    def _dotted_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not re.fullmatch(DOTTED_NAME_PATTERN, name):
                raise ValueError(f"'{name}' is not a dotted library name such as "
                                 "'torch.nn.functional.scaled_dot_product_attention'")
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"banned_calls lists {', '.join(repeated)} more than once")
        return names

    @field_validator("functions")
    @classmethod
    def _unique_functions(cls, functions: list[FunctionSpec]) -> list[FunctionSpec]:
        names = [f.name for f in functions]
        if len(set(names)) != len(names):
            raise ValueError(f"function names must be unique, got {names}")
        return functions


class MutantSource(NamedTuple):
    """A mutant as a submission: its file name, the bug in the learner's words, and the code to grade."""

    name: str
    description: str
    code: str


@dataclass(frozen=True)
class Mutant:
    """One file of mutants/, parsed. A patch (docstring line `Overrides: f, g`) stands for the reference's source
    followed by its own, so its definitions replace the reference's; any other file is a whole submission."""

    name: str
    path: Path
    description: str  # the docstring's first line: what the learner did wrong, in their words
    overrides: tuple[str, ...]  # empty for a whole-file mutant
    citation: str  # the `Source:` line: public code or an issue where this bug was seen; "" if none
    code: str  # exactly what is graded

    @property
    def is_patch(self) -> bool:
        return bool(self.overrides)


class MutantError(ProblemError):
    """A mutant file is malformed (a patch that does not define what it says it overrides, and the like)."""


_OVERRIDES = re.compile(r"^\s*Overrides:\s*(.*)$", re.MULTILINE)
_SOURCE = re.compile(r"^\s*Source:\s*(.+)$", re.MULTILINE)


def parse_mutant(path: Path, reference_source: str) -> Mutant:
    """Read one mutant file and materialise the submission it stands for."""
    text = path.read_text()
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise MutantError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    docstring = ast.get_docstring(tree) or ""
    description = _description(docstring) or _comment_description(text)
    citation_match = _SOURCE.search(docstring)
    citation = citation_match.group(1).strip() if citation_match else ""
    overrides_match = _OVERRIDES.search(docstring)
    if overrides_match is None:
        return Mutant(path.name, path, description, (), citation, text)
    overrides = tuple(name.strip() for name in overrides_match.group(1).split(",") if name.strip())
    where = f"{path}:{_docstring_line(tree, text, overrides_match.group(0))}"
    if not overrides:
        raise MutantError(f"{where}: 'Overrides:' names no function; list the reference's functions this patch "
                          "replaces, e.g. 'Overrides: nt_xent_loss'")
    if not description or description.startswith("Overrides:"):
        raise MutantError(f"{where}: a patch's docstring starts with the bug in the learner's words, e.g. "
                          "'This is what you get when the temperature multiplies the logits.'")
    _check_patch(path, tree, overrides, reference_source, where)
    banner = f"# --- mutant {path.name}: its definitions replace the ones above ---"
    code = f"{reference_source.rstrip()}\n\n\n{banner}\n{text}"
    return Mutant(path.name, path, description, overrides, citation, code)


def _comment_description(text: str) -> str:
    """The older whole-file mutants say their bug in a first-line comment: '# MUTANT: multiplies ...'."""
    match = re.match(r"\s*#\s*MUTANT:\s*(.+)", text)
    return match.group(1).strip() if match else ""


def _description(docstring: str) -> str:
    """The first paragraph (a sentence may wrap), without the 'Mutant:' label older whole-file mutants carry;
    it stops before the `Overrides:` and `Source:` lines."""
    lines = []
    for line in docstring.strip().splitlines():
        if not line.strip() or line.strip().startswith(("Overrides:", "Source:")):
            break
        lines.append(line.strip())
    return " ".join(lines).removeprefix("Mutant:").strip()


def _docstring_line(tree: ast.Module, text: str, line: str) -> int:
    start = tree.body[0].lineno if tree.body else 1
    for number, content in enumerate(text.splitlines()[start - 1 :], start=start):
        if line.strip() in content:
            return number
    return start


def _top_level_names(tree: ast.Module) -> dict[str, int]:
    """Names a module's top level defines (functions, classes, assignments; not imports), with their lines."""
    names: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node.lineno
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node.lineno
    return names


def _helper_imports(tree: ast.Module) -> dict[str, int]:
    """Names a module's top level binds with `from helpers import ...`: a patch may override them too, since
    the reference's functions look each one up in the reference's own namespace when they run (a patch that
    replaces `validate_inputs` changes what the reference calls; helpers.py itself is never changed)."""
    return {alias.asname or alias.name: node.lineno for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == HELPERS_MODULE and node.level == 0
            for alias in node.names if alias.name != "*"}


def _check_patch(path: Path, tree: ast.Module, overrides: tuple[str, ...], reference_source: str, where: str) -> None:
    future = next((n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"), None)
    if future is not None:
        raise MutantError(f"{path}:{future.lineno}: a patch is appended to the reference, so it cannot have a "
                          "'from __future__' import; remove it (the reference's own imports apply)")
    defined = _top_level_names(tree)
    missing = [name for name in overrides if name not in defined]
    if missing:
        raise MutantError(f"{where}: the patch says it overrides {', '.join(missing)} but does not define "
                          f"{'it' if len(missing) == 1 else 'them'}")
    reference_tree = ast.parse(reference_source)
    reference_names = {**_helper_imports(reference_tree), **_top_level_names(reference_tree)}
    unknown = [name for name in overrides if name not in reference_names]
    if unknown:
        raise MutantError(f"{where}: the reference defines no {', '.join(unknown)}; a patch overrides the "
                          "reference's own definitions and what it imports from helpers (a new helper needs no "
                          "'Overrides:' entry)")
    shadowed = [name for name in defined if name in reference_names and name not in overrides]
    if shadowed:
        name = shadowed[0]
        raise MutantError(f"{path}:{defined[name]}: the patch redefines the reference's {name} without listing it "
                          "in 'Overrides:'; list it, or rename the helper")


@dataclass(frozen=True)
class Problem:
    """A loaded problem. Reference and checks are trusted code and run only in the judge's process."""

    spec: ProblemSpec
    folder: Path
    statement: str
    starter: str
    notes: str
    reference: ModuleType
    checks: tuple[Check, ...]
    parameter_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    helpers: str = ""  # the source of helpers.py, loaded as module `helpers` beside every submission
    helpers_module: ModuleType | None = field(default=None, compare=False, repr=False)  # the judge's import of it
    diagnoser: Diagnoser | None = field(default=None, compare=False, repr=False)  # known mistakes, by their values
    # the clauses the declared contracts state (covered by the generic battery), beside the hand-written ones
    generated_clauses: tuple[GeneratedClause, ...] = ()

    @property
    def slug(self) -> str:
        return self.spec.slug

    @property
    def limits(self) -> Limits:
        return self.spec.limits

    def reference_source(self) -> str:
        return (self.folder / "reference.py").read_text()

    @property
    def solution_file(self) -> str:
        """The file learners are shown as the solution: solution.py when the author wrote one, else reference.py
        (with its `# private:` comments stripped)."""
        return SOLUTION_FILE if (self.folder / SOLUTION_FILE).is_file() else "reference.py"

    def solution_source(self) -> str:
        """What the Solution page shows learners once they solve the problem or give up."""
        if self.solution_file == SOLUTION_FILE:
            return (self.folder / SOLUTION_FILE).read_text()
        return strip_private_comments(self.reference_source())

    @property
    def clauses(self) -> tuple[ClauseSpec, ...]:
        return tuple(self.spec.clauses)

    @property
    def hints(self) -> tuple[HintSpec, ...]:
        return tuple(self.spec.hints)

    @property
    def banned_calls(self) -> tuple[str, ...]:
        return tuple(self.spec.banned_calls)

    def mutants(self) -> list[Path]:
        return sorted((self.folder / "mutants").glob("*.py"))

    def parsed_mutants(self) -> list[Mutant]:
        """Every mutant parsed and materialised; raises MutantError (file:line) on the first malformed one."""
        reference = self.reference_source()
        return [parse_mutant(path, reference) for path in self.mutants()]

    def mutant_sources(self) -> list[MutantSource]:
        """(name, description, code) of every mutant, code being exactly what grading it runs. The one place
        patches are materialised: the self-test, `grader messages` and diagnoses all read mutants through it."""
        return [MutantSource(m.name, m.description, m.code) for m in self.parsed_mutants()]

    def variants(self) -> list[Path]:
        return sorted((self.folder / "variants").glob("*.py"))


SOLUTION_FILE = "solution.py"  # optional: the solution learners read; default the reference, private comments out
PRIVATE_COMMENT = "# private:"


def strip_private_comments(source: str) -> str:
    """`source` without its comments that start with `# private:` (an author's note learners must not read): a
    line holding only such a comment goes, a trailing one is cut from its line. Found with the tokenizer, so
    "# private:" inside a string stays. Source that does not tokenize is returned unchanged."""
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    drop: set[int] = set()
    for token in tokens:
        if token.type != tokenize.COMMENT or not token.string.lower().startswith(PRIVATE_COMMENT):
            continue
        row, column = token.start
        line = lines[row - 1]
        if not line[:column].strip():
            drop.add(row - 1)
        else:
            ending = "\n" if line.endswith("\n") else ""
            lines[row - 1] = line[:column].rstrip() + ending
    return "".join(line for index, line in enumerate(lines) if index not in drop)


REQUIRED_FILES = ("problem.toml", "statement.md", "starter.py", "reference.py", "checks.py", "notes.md")


def resolve_folder(name_or_path: str | Path, problems_dir: Path = PROBLEMS_DIR) -> Path:
    """A slug under problems/ or a path to a problem folder."""
    candidate = Path(name_or_path)
    if candidate.is_dir():
        return candidate.resolve()
    by_slug = problems_dir / str(name_or_path)
    if by_slug.is_dir():
        return by_slug.resolve()
    raise ProblemError(f"no problem folder '{name_or_path}' (looked for {candidate} and {by_slug})")


def load_spec(folder: Path) -> ProblemSpec:
    path = folder / "problem.toml"
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ProblemError(f"{path}: missing; every problem folder needs a problem.toml") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(f"{path}: invalid TOML: {exc}") from None
    try:
        spec = ProblemSpec.model_validate(data)
    except ValidationError as exc:
        raise ProblemError(format_validation_error(path, text, exc)) from None
    if spec.slug != folder.name:
        raise ProblemError(
            f"{path}:{_line_of(text, 'slug')}: slug '{spec.slug}' must match the folder name '{folder.name}'"
        )
    return spec


def spec_text(folder: Path) -> str:
    return (folder / "problem.toml").read_text()


def _line_of(text: str, key: str) -> int:
    return _line_of_location(text, [key])


def _line_of_location(text: str, location: list[str]) -> int:
    """The line of a validation error's location, e.g. ["functions", "1", "name"] is the `name` key after the
    second `[[functions]]` header."""
    lines = text.splitlines()
    start, found = 0, 1
    for position, part in enumerate(location):
        if part.isdigit():
            continue
        following = location[position + 1] if position + 1 < len(location) else None
        occurrence = int(following) if following is not None and following.isdigit() else 0
        for number in range(start, len(lines)):
            stripped = lines[number].strip()
            if stripped.startswith(f"[[{part}]]"):
                if occurrence == 0:
                    start, found = number + 1, number + 1
                    break
                occurrence -= 1
            elif stripped.startswith((f"{part} ", f"{part}=", f"[{part}]")):
                start, found = number + 1, number + 1
                break
    return found


def format_validation_error(path: Path, text: str, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        # a contract's keys are written beside the function's name, not under a "contract" key
        location = [str(part) for part in error["loc"] if part != "contract"]
        line = _line_of_location(text, location)
        lines.append(f"{path}:{line}: {'.'.join(location) or '(top level)'}: {error['msg']}")
    return "\n".join(lines)


def _import_trusted(path: Path, module_name: str, *, helpers: ModuleType | None = None) -> ModuleType:
    """Import a trusted file of the problem; `helpers` is what `import helpers` gives it meanwhile (the problem's
    own helpers.py, so the reference and checks can share the starter's validation code)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ProblemError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        with importable_as_helpers(helpers):
            spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        line = _failing_line(exc, path)
        where = f"{path}:{line}" if line else f"{path}"
        raise ProblemError(f"{where}: failed to import: {type(exc).__name__}: {exc}") from exc
    return module


def _failing_line(exc: BaseException, path: Path) -> int | None:
    """The line of `path` where importing it failed: a syntax error's own line, else the innermost frame of the
    traceback that is in `path` (an error raised deeper, in torch say, is reported where the file called it)."""
    if isinstance(exc, SyntaxError) and exc.filename == str(path) and exc.lineno:
        return exc.lineno
    line = None
    for frame, number in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == str(path):
            line = number
    return line


def load_problem(name_or_path: str | Path, problems_dir: Path = PROBLEMS_DIR) -> Problem:
    folder = resolve_folder(name_or_path, problems_dir)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ProblemError(f"{folder / name}: missing; a problem folder needs {', '.join(REQUIRED_FILES)}")
    spec = load_spec(folder)
    token = f"{spec.slug.replace('-', '_')}_{abs(hash(folder))}"
    helpers_path = folder / f"{HELPERS_MODULE}.py"
    helpers = (_import_trusted(helpers_path, f"paperlab_problems.{token}.helpers")
               if helpers_path.is_file() else None)
    reference = _import_trusted(folder / "reference.py", f"paperlab_problems.{token}.reference", helpers=helpers)
    checks_module = _import_trusted(folder / "checks.py", f"paperlab_problems.{token}.checks", helpers=helpers)
    parameter_names: dict[str, tuple[str, ...]] = {}
    for function in spec.functions:
        implementation = getattr(reference, function.name, None)
        if not callable(implementation):
            raise ProblemError(f"{folder / 'reference.py'}: defines no function '{function.name}' (problem.toml)")
        parameter_names[function.name] = _parameter_names(implementation)
    try:
        checks = collect_checks(checks_module, required_groups=spec.required_groups)
        legal = collect_legal_inputs(checks_module)
    except ValueError as exc:
        raise ProblemError(str(exc)) from None
    contracts = {function.name: function.contract for function in spec.functions}
    for name, declared in contracts.items():
        if declared is not None and tuple(declared.args) != parameter_names[name]:
            raise ProblemError(f"{folder / 'problem.toml'}:{_line_of(spec_text(folder), 'args')}: the contract of "
                               f"{name} declares ({', '.join(declared.args)}), but the reference's parameters are "
                               f"({', '.join(parameter_names[name])}): declare every parameter, in order")
    unknown = sorted(name for name in legal if contracts.get(name) is None)
    if unknown:
        raise ProblemError(f"{folder / 'checks.py'}: @legal_inputs for {', '.join(unknown)}, which problem.toml "
                           "declares no contract for")
    generic, generated = build_battery(spec.slug, contracts.items(), reference, legal)
    if not checks and not generic:
        raise ProblemError(f"{folder / 'checks.py'}: defines no @check functions, and problem.toml declares no "
                           "contract to derive checks from")
    _check_clause_references(folder, spec, checks)
    clashing = sorted({c.id for c in checks} & {c.id for c in generic})
    if clashing:
        raise ProblemError(f"{folder / 'checks.py'}: check ids {', '.join(clashing)} are the generic battery's; "
                           "rename them")
    checks = (*checks, *generic)
    problem = Problem(
        spec=spec,
        folder=folder,
        statement=with_rules((folder / "statement.md").read_text(), spec),
        starter=(folder / "starter.py").read_text(),
        notes=(folder / "notes.md").read_text(),
        reference=reference,
        checks=checks,
        parameter_names=parameter_names,
        helpers=helpers_path.read_text() if helpers is not None else "",
        helpers_module=helpers,
        generated_clauses=tuple(generated),
    )
    object.__setattr__(problem, "diagnoser", Diagnoser(problem))  # it needs the problem it belongs to
    return problem


def _check_clause_references(folder: Path, spec: ProblemSpec, checks: tuple[Check, ...]) -> None:
    declared = [c.id for c in spec.clauses]
    for item in checks:
        unknown = [clause for clause in item.clauses if clause not in declared]
        if unknown:
            line = item.function.__code__.co_firstlineno
            known = ", ".join(declared) if declared else "none (add [[clauses]] tables)"
            raise ProblemError(f"{folder / 'checks.py'}:{line}: check '{item.id}' names unknown clause(s) "
                               f"{', '.join(unknown)}; problem.toml declares: {known}")


BANNED_HEADING = "## Not allowed"


def with_rules(statement: str, spec: ProblemSpec) -> str:
    """The statement as learners see it: the author's text, then the banned calls listed from problem.toml, so
    the two can never disagree."""
    if not spec.banned_calls:
        return statement
    listed = "\n".join(f"- `{name}`" for name in spec.banned_calls)
    return (f"{statement.rstrip()}\n\n{BANNED_HEADING}\n\nYour solution must not call these library functions "
            f"(calling one raises an error that names this rule):\n\n{listed}\n")


def _parameter_names(function: Callable[..., object]) -> tuple[str, ...]:
    return tuple(inspect.signature(function).parameters)


def discover(problems_dir: Path = PROBLEMS_DIR) -> tuple[list[Problem], dict[str, str]]:
    """Every valid problem folder, plus the error of each invalid one (so a bad folder never breaks the site)."""
    problems: list[Problem] = []
    errors: dict[str, str] = {}
    if not problems_dir.is_dir():
        return problems, errors
    for folder in sorted(p for p in problems_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            problems.append(load_problem(folder, problems_dir))
        except ProblemError as exc:
            errors[folder.name] = str(exc)
    return problems, errors
