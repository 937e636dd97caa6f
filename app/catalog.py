"""The problems this server offers: loaded once at start-up from PAPERLAB_PROBLEMS_DIR. An invalid folder is
logged and skipped so one bad problem never takes the site down. Statements are rendered here once; notes are
rendered only by the notes page (after the server has checked the learner solved the problem)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import NotFound
from app.markdown import render_markdown
from grader import Problem, discover

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CatalogEntry:
    problem: Problem
    statement_html: str

    @property
    def slug(self) -> str:
        return self.problem.slug

    @property
    def check_count(self) -> int:
        return len(self.problem.checks)

    def public(self) -> dict[str, Any]:
        """What anyone may see: never the notes, the reference or the checks' code."""
        spec = self.problem.spec
        return {
            "slug": spec.slug,
            "title": spec.title,
            "summary": spec.summary,
            "difficulty": spec.difficulty,
            "tags": list(spec.tags),
            "functions": [
                {"name": f.name, "signature": f.signature, "summary": f.summary} for f in spec.functions
            ],
            "check_count": self.check_count,
        }

    def notes_html(self) -> str:
        return render_markdown(self.problem.notes)


@dataclass(frozen=True)
class ProblemCatalog(Mapping[str, Problem]):
    """slug -> Problem (the mapping the grading runner needs), plus rendered entries for the pages."""

    entries: dict[str, CatalogEntry]
    errors: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, slug: str) -> Problem:
        return self.entries[slug].problem

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, slug: str) -> CatalogEntry:
        try:
            return self.entries[slug]
        except KeyError:
            raise NotFound(f"There is no problem '{slug}'.") from None


def load_catalog(problems_dir: Path) -> ProblemCatalog:
    problems, errors = discover(problems_dir)
    for name, message in errors.items():
        logger.error("problem folder %r skipped: %s", name, message)
    if not problems:
        logger.warning("no valid problems in %s", problems_dir)
    entries = {p.slug: CatalogEntry(problem=p, statement_html=render_markdown(p.statement)) for p in problems}
    logger.info("serving %d problem(s) from %s: %s", len(entries), problems_dir, ", ".join(entries))
    return ProblemCatalog(entries=entries, errors=errors)
