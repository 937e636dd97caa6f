"""Load and validate a problem folder: problem.toml, statement, starter, reference, checks, notes."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from grader.checks import Check, collect_checks
from grader.limits import Limits

PROBLEMS_DIR = Path(__file__).resolve().parent.parent / "problems"
SLUG_PATTERN = r"^[a-z][a-z0-9_-]{0,39}$"


class ProblemError(Exception):
    """A problem folder is missing a file or has an invalid one; the message names the file and line."""


class FunctionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    signature: str = Field(description="Shown to learners, e.g. 'moco_loss(query, key, queue, temperature)'.")
    summary: str = ""


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

    @field_validator("functions")
    @classmethod
    def _unique_functions(cls, functions: list[FunctionSpec]) -> list[FunctionSpec]:
        names = [f.name for f in functions]
        if len(set(names)) != len(names):
            raise ValueError(f"function names must be unique, got {names}")
        return functions


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

    @property
    def slug(self) -> str:
        return self.spec.slug

    @property
    def limits(self) -> Limits:
        return self.spec.limits

    def reference_source(self) -> str:
        return (self.folder / "reference.py").read_text()

    def mutants(self) -> list[Path]:
        return sorted((self.folder / "mutants").glob("*.py"))

    def variants(self) -> list[Path]:
        return sorted((self.folder / "variants").glob("*.py"))


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
        raise ProblemError(_format_validation_error(path, text, exc)) from None
    if spec.slug != folder.name:
        raise ProblemError(
            f"{path}:{_line_of(text, 'slug')}: slug '{spec.slug}' must match the folder name '{folder.name}'"
        )
    return spec


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


def _format_validation_error(path: Path, text: str, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        location = [str(part) for part in error["loc"]]
        line = _line_of_location(text, location)
        lines.append(f"{path}:{line}: {'.'.join(location) or '(top level)'}: {error['msg']}")
    return "\n".join(lines)


def _import_trusted(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ProblemError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ProblemError(f"{path}: failed to import: {type(exc).__name__}: {exc}") from exc
    return module


def load_problem(name_or_path: str | Path, problems_dir: Path = PROBLEMS_DIR) -> Problem:
    folder = resolve_folder(name_or_path, problems_dir)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ProblemError(f"{folder / name}: missing; a problem folder needs {', '.join(REQUIRED_FILES)}")
    spec = load_spec(folder)
    token = f"{spec.slug.replace('-', '_')}_{abs(hash(folder))}"
    reference = _import_trusted(folder / "reference.py", f"paperlab_problems.{token}.reference")
    checks_module = _import_trusted(folder / "checks.py", f"paperlab_problems.{token}.checks")
    parameter_names: dict[str, tuple[str, ...]] = {}
    for function in spec.functions:
        implementation = getattr(reference, function.name, None)
        if not callable(implementation):
            raise ProblemError(f"{folder / 'reference.py'}: defines no function '{function.name}' (problem.toml)")
        parameter_names[function.name] = _parameter_names(implementation)
    try:
        checks = collect_checks(checks_module, required_groups=spec.required_groups)
    except ValueError as exc:
        raise ProblemError(str(exc)) from None
    if not checks:
        raise ProblemError(f"{folder / 'checks.py'}: defines no @check functions")
    return Problem(
        spec=spec,
        folder=folder,
        statement=(folder / "statement.md").read_text(),
        starter=(folder / "starter.py").read_text(),
        notes=(folder / "notes.md").read_text(),
        reference=reference,
        checks=checks,
        parameter_names=parameter_names,
    )


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
