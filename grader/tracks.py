"""Tracks: ordered learning paths through the catalogue, read from problems/tracks.toml.

A track has a slug, a title, a paragraph on what it teaches, its problems in order, and prerequisites (problem
-> problems to solve first). The file may name problems that have no folder yet: loading skips them and
reports them (`Tracks.skipped`), so a track can be planned before every problem is written. Everything else
that is wrong (an unknown key, a slug twice, a prerequisite that comes later or forms a cycle) is an error that
names the file and line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from grader.errors import AuthoringError
from grader.problems import PROBLEMS_DIR, SLUG_PATTERN, format_validation_error

TRACKS_FILE = "tracks.toml"


class TracksError(AuthoringError):
    """problems/tracks.toml is missing or invalid; the message names the file and line."""


class TrackSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    slug: str = Field(pattern=SLUG_PATTERN)
    title: str = Field(min_length=1, max_length=80)
    summary: str = Field(min_length=40, max_length=1200, description="One paragraph on what the track teaches.")
    problems: list[str] = Field(min_length=1, description="Problem slugs, in the order a learner takes them.")
    prerequisites: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("summary")
    @classmethod
    def _one_paragraph(cls, summary: str) -> str:
        text = summary.strip()
        if "\n\n" in text:
            raise ValueError("the summary is one paragraph; remove the blank line")
        return " ".join(text.split())

    @field_validator("problems")
    @classmethod
    def _slugs(cls, problems: list[str]) -> list[str]:
        for slug in problems:
            _check_slug(slug)
        repeated = sorted({slug for slug in problems if problems.count(slug) > 1})
        if repeated:
            raise ValueError(f"a problem appears once per track; repeated: {', '.join(repeated)}")
        return problems

    @model_validator(mode="after")
    def _prerequisites_come_first(self) -> TrackSpec:
        for problem, needs in self.prerequisites.items():
            if problem not in self.problems:
                raise ValueError(f"prerequisites name '{problem}', which is not among this track's problems")
            for need in needs:
                _check_slug(need)
                if need == problem:
                    raise ValueError(f"'{problem}' cannot be its own prerequisite")
                if need in self.problems and self.problems.index(need) > self.problems.index(problem):
                    raise ValueError(f"'{problem}' needs '{need}', which comes after it in this track; put "
                                     f"'{need}' first")
        return self


def _check_slug(slug: str) -> None:
    if not re.fullmatch(SLUG_PATTERN, slug):
        raise ValueError(f"'{slug}' is not a problem slug (pattern {SLUG_PATTERN})")


class TracksFile(BaseModel):
    """The schema of problems/tracks.toml."""

    model_config = ConfigDict(extra="forbid")

    tracks: list[TrackSpec] = Field(min_length=1)

    @field_validator("tracks")
    @classmethod
    def _unique_and_known(cls, tracks: list[TrackSpec]) -> list[TrackSpec]:
        slugs = [t.slug for t in tracks]
        repeated = sorted({s for s in slugs if slugs.count(s) > 1})
        if repeated:
            raise ValueError(f"track slugs must be unique; repeated: {', '.join(repeated)}")
        listed = {slug for track in tracks for slug in track.problems}
        for track in tracks:
            for problem, needs in track.prerequisites.items():
                unknown = [need for need in needs if need not in listed]
                if unknown:
                    raise ValueError(f"track '{track.slug}': '{problem}' needs {', '.join(unknown)}, which no track "
                                     "lists")
        cycle = _cycle({p: n for track in tracks for p, n in track.prerequisites.items()})
        if cycle:
            raise ValueError(f"prerequisites form a cycle: {' -> '.join(cycle)}")
        return tracks


def _cycle(graph: dict[str, list[str]]) -> list[str]:
    """A cycle of the prerequisite graph as [a, b, ..., a], or [] when there is none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for need in graph.get(node, []):
            if state.get(need) == 1:
                return path[path.index(need):] + [need]
            if need not in state and (found := visit(need)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


@dataclass(frozen=True)
class Track:
    """A track as the site shows it: only the problems that have a folder, in order."""

    slug: str
    title: str
    summary: str
    problems: tuple[str, ...]
    prerequisites: dict[str, tuple[str, ...]]  # restricted to problems that exist
    skipped: tuple[str, ...]  # listed, but no folder under problems/ yet


@dataclass(frozen=True)
class Tracks:
    tracks: tuple[Track, ...]

    @property
    def skipped(self) -> dict[str, tuple[str, ...]]:
        """Per track, the listed problems that have no folder yet (tracks that skip nothing are left out)."""
        return {t.slug: t.skipped for t in self.tracks if t.skipped}

    def track(self, slug: str) -> Track:
        for track in self.tracks:
            if track.slug == slug:
                return track
        raise KeyError(f"no track '{slug}'; tracks: {', '.join(t.slug for t in self.tracks)}")


def load_tracks(problems_dir: Path = PROBLEMS_DIR, path: Path | None = None) -> Tracks:
    """Read and validate problems_dir/tracks.toml; keep the problems that have a folder in problems_dir."""
    path = path or problems_dir / TRACKS_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise TracksError(f"{path}: missing; it lists the tracks (see docs/authoring.md)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TracksError(f"{path}: invalid TOML: {exc}") from None
    try:
        spec = TracksFile.model_validate(data)
    except ValidationError as exc:
        raise TracksError(format_validation_error(path, text, exc)) from None
    return Tracks(tuple(_present(track, problems_dir) for track in spec.tracks))


def _present(spec: TrackSpec, problems_dir: Path) -> Track:
    present = tuple(slug for slug in spec.problems if (problems_dir / slug).is_dir())
    return Track(
        slug=spec.slug,
        title=spec.title,
        summary=spec.summary,
        problems=present,
        prerequisites={
            problem: tuple(need for need in needs if (problems_dir / need).is_dir())
            for problem, needs in spec.prerequisites.items()
            if problem in present
        },
        skipped=tuple(slug for slug in spec.problems if slug not in present),
    )
