"""`python -m grader new SLUG`: create a problem folder from grader/problem_template/.

The template is a small, complete, sound problem (normalize_rows) so that `python -m grader selftest SLUG`
passes straight after `new`; the author then replaces it piece by piece, re-running the self-test as they go.
It shows every form the self-test reads: [[clauses]] that the checks cite, progressive [[hints]], a commented
banned_calls line, mutants written as patches over the reference (`Overrides:` in their docstring), and a
helpers.py holding the validation that the starter, the reference and a variant import instead of pasting it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from grader.errors import AuthoringError
from grader.problems import SLUG_PATTERN

TEMPLATE_DIR = Path(__file__).resolve().parent / "problem_template"

# Placeholders the template's text files may contain; .py files keep them inside strings or comments only,
# so the template itself stays importable and lint-clean.
SLUG_PLACEHOLDER = "{{slug}}"
TITLE_PLACEHOLDER = "{{title}}"

_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class ScaffoldError(AuthoringError):
    """`new` refused: the slug is invalid or the folder already exists. The message says what to do."""


def title_from_slug(slug: str) -> str:
    """'nt-xent_loss' -> 'Nt xent loss': a placeholder title the author edits in problem.toml."""
    return re.sub(r"[-_]+", " ", slug).strip().capitalize()


def create_problem(slug: str, problems_dir: Path) -> Path:
    """Create problems_dir/SLUG/ from the template and return its path.

    The folder is assembled under a hidden temporary name and renamed into place, so a failure half way never
    leaves a partial problem that the web app would try (and fail) to list."""
    if not re.fullmatch(SLUG_PATTERN, slug):
        raise ScaffoldError(
            f"invalid slug '{slug}': use 1-40 lowercase letters, digits, '-' or '_', starting with a letter "
            f"(pattern {SLUG_PATTERN}), e.g. 'simclr' or 'layer-norm'"
        )
    target = problems_dir / slug
    if target.exists():
        raise ScaffoldError(f"{target} already exists; choose another slug or remove that folder first")
    problems_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{slug}.", dir=problems_dir))
    try:
        built = staging / slug
        shutil.copytree(TEMPLATE_DIR, built, ignore=_SKIPPED)
        title = title_from_slug(slug)
        for path in sorted(built.rglob("*")):
            if path.is_file():
                _fill_placeholders(path, slug=slug, title=title)
        try:
            built.rename(target)
        except OSError as exc:  # created by someone else since the check above
            raise ScaffoldError(f"{target} already exists ({exc.strerror}); choose another slug") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _fill_placeholders(path: Path, *, slug: str, title: str) -> None:
    text = path.read_text()
    filled = text.replace(SLUG_PLACEHOLDER, slug).replace(TITLE_PLACEHOLDER, title)
    if filled != text:
        path.write_text(filled)
