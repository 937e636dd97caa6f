"""The home page's catalogue: the tracks of problems/tracks.toml as learning paths, each problem with this
learner's progress and its prerequisites, then the problems no track lists; filtered by tag, difficulty and a
search over titles, summaries and tags. Pure: it takes the catalog, the tracks and the learner's progress.

tracks.toml is read once per problems folder (like the problems, at start-up in effect); a missing or invalid
file is logged and the page shows every problem without tracks rather than failing."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from app.catalog import CatalogEntry, ProblemCatalog
from app.markdown import plain_text_of_math
from app.progress import PROGRESS_LABELS, ProblemProgress
from grader import Tracks, TracksError, load_tracks

logger = logging.getLogger(__name__)

DIFFICULTIES = ("easy", "medium", "hard")
# The card's CSS state (problem-card--new|attempted|solved) for each progress.
CARD_STATES: dict[ProblemProgress, str] = {
    "not_started": "new",
    "attempted": "attempted",
    "solved": "solved",
    "solved_after_reveal": "solved",
}


class CatalogueFilter(BaseModel):
    tag: str = Field(default="", max_length=80)
    difficulty: str = Field(default="", max_length=20)
    q: str = Field(default="", max_length=200, description="Words that must all appear in title, summary or tags.")

    @property
    def active(self) -> bool:
        return bool(self.tag or self.difficulty or self.q.strip())

    def matches(self, entry: CatalogEntry) -> bool:
        spec = entry.problem.spec
        tags = [tag.lower() for tag in spec.tags]
        if self.tag and self.tag.lower() not in tags:
            return False
        if self.difficulty and self.difficulty != spec.difficulty:
            return False
        haystack = " ".join([spec.title, plain_text_of_math(spec.summary), *spec.tags]).lower()
        return all(word in haystack for word in self.q.lower().split())


@cache
def tracks_for(problems_dir: Path) -> Tracks | None:
    try:
        return load_tracks(problems_dir)
    except TracksError as exc:
        logger.error("no tracks on the home page: %s", exc)
        return None


def problem_card(entry: CatalogEntry, progress: Mapping[str, ProblemProgress], catalog: ProblemCatalog,
                 needs: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    state = progress.get(entry.slug, "not_started")
    return {
        **entry.public(),
        "progress": state,
        "progress_label": PROGRESS_LABELS[state],
        "state": CARD_STATES[state],
        "search_text": " ".join([entry.problem.spec.title, plain_text_of_math(entry.problem.spec.summary),
                                 *entry.problem.spec.tags]),
        "needs": [
            {
                "slug": need,
                "title": catalog.entries[need].problem.spec.title,
                "solved": progress.get(need, "not_started").startswith("solved"),
            }
            for need in needs
            if need in catalog.entries
        ],
    }


def catalogue(*, catalog: ProblemCatalog, tracks: Tracks | None, progress: Mapping[str, ProblemProgress],
              chosen: CatalogueFilter) -> dict[str, Any]:  # fmt: skip
    """The home page's context: tracks, the problems outside every track, the filter and its choices."""
    shown_tracks: list[dict[str, Any]] = []
    in_a_track: set[str] = set()
    for track in tracks.tracks if tracks else ():
        present = [slug for slug in track.problems if slug in catalog.entries]
        in_a_track.update(present)
        solved = sum(1 for slug in present if progress.get(slug, "not_started").startswith("solved"))
        cards = [
            {**problem_card(catalog.entries[slug], progress, catalog, track.prerequisites.get(slug, ())), "step": n}
            for n, slug in enumerate(present, 1)
            if chosen.matches(catalog.entries[slug])
        ]
        if present and (cards or not chosen.active):
            shown_tracks.append(
                {"slug": track.slug, "title": track.title, "summary": track.summary, "problems": cards,
                 "solved": solved, "total": len(present)}  # fmt: skip
            )
    others = [
        problem_card(entry, progress, catalog)
        for slug, entry in catalog.entries.items()
        if slug not in in_a_track and chosen.matches(entry)
    ]
    matched = len({card["slug"] for track in shown_tracks for card in track["problems"]} | {c["slug"] for c in others})
    return {
        "tracks": shown_tracks,
        "others": others,
        "filter": chosen,
        "matched": matched,
        "all_tags": sorted({tag for entry in catalog.entries.values() for tag in entry.problem.spec.tags},
                           key=str.lower),
        "difficulties": DIFFICULTIES,
    }
