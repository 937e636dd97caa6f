"""An experiment's series as static SVG line charts, for places that run no script (a notebook's output): the
same series, titles, colours and readout as the notes page's uPlot charts (static/src/charts.js), drawn once
on the server. Every piece of text is escaped; the numbers come from the learner's report."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from grader import Experiment

WIDTH, HEIGHT = 560, 200
LEFT, RIGHT, TOP, BOTTOM = 64, 12, 10, 34  # room for the value ticks on the left and the axis label below


@dataclass(frozen=True)
class SeriesLook:
    title: str
    colour: str


# As charts.js's SERIES: a known series gets its readable title and colour, any other is drawn under its name.
KNOWN_SERIES = {
    "loss": SeriesLook("Contrastive loss", "#3d5afe"),
    "param_distance": SeriesLook("Key encoder distance from the query encoder", "#c2410c"),
    "pointer": SeriesLook("Queue pointer", "#0f766e"),
}
FALLBACK_COLOURS = ("#7c3aed", "#be123c", "#4d7c0f")


def look_of(name: str) -> SeriesLook:
    return KNOWN_SERIES.get(name, SeriesLook(name.replace("_", " "), FALLBACK_COLOURS[len(name) % 3]))


def format_value(value: float | None) -> str:
    """As charts.js's formatValue: integers whole, 4 significant digits, exponents for the very large or small."""
    if value is None or not math.isfinite(value):
        return "NaN" if value is None or math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if float(value).is_integer():
        return str(int(value))
    if abs(value) >= 1e4 or abs(value) < 1e-3:
        mantissa, exponent = f"{value:.3e}".split("e")
        return f"{mantissa}e{'+' if int(exponent) >= 0 else '-'}{abs(int(exponent))}"
    return f"{value:#.4g}".rstrip(".")


def charts(experiment: Experiment, names: Sequence[str] = ()) -> list[Markup]:
    """One figure per series named (those the notes place), else per series in the experiment."""
    chosen = [name for name in names if name in experiment.series] or list(experiment.series)
    return [chart(experiment, name) for name in chosen if experiment.series[name]]


def chart(experiment: Experiment, name: str) -> Markup:
    values = experiment.series[name]
    steps = experiment.steps if len(experiment.steps) == len(values) else list(range(len(values)))
    look, x_label = look_of(name), experiment.x_label or "step"
    finite = [v for v in values if v is not None and math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if high == low:
        low, high = low - 1.0, high + 1.0
    first_step, last_step = steps[0], steps[-1]
    span = (last_step - first_step) or 1

    def x(step: float) -> float:
        return LEFT + (step - first_step) / span * (WIDTH - LEFT - RIGHT)

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * (HEIGHT - TOP - BOTTOM)

    lines: list[list[str]] = []
    run: list[str] = []
    for step, value in zip(steps, values, strict=True):
        if value is None or not math.isfinite(value):  # a gap, as uPlot leaves one
            lines.append(run)
            run = []
            continue
        run.append(f"{x(step):.1f},{y(value):.1f}")
    lines.append(run)
    paths = "".join(
        f'<polyline fill="none" stroke="{look.colour}" stroke-width="2" points="{" ".join(points)}"/>'
        for points in lines if points
    )
    ticks = "".join(
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eceef2"/>'
        f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{escape(format_value(v))}</text>'
        for v in (high, (high + low) / 2, low)
    )
    axis = (
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" y2="{HEIGHT - BOTTOM}" stroke="#4b5563"/>'
        f'<text x="{LEFT}" y="{HEIGHT - BOTTOM + 14}" text-anchor="start">{first_step}</text>'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - BOTTOM + 14}" text-anchor="end">{last_step}</text>'
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 4}" text-anchor="middle">{escape(x_label)}</text>'
    )
    last = len(values) - 1
    readout = f"final {format_value(values[last])} at {x_label} {steps[last]}"
    description = (f"{look.title}: {len(values)} points over {x_label} {first_step}–{last_step}, "
                   f"from {format_value(values[0])} to {format_value(values[last])}")  # fmt: skip
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{escape(description)}" font-size="11" fill="#4b5563" '
        f'font-family="system-ui, sans-serif">{ticks}{axis}{paths}</svg>'
    )
    return Markup(
        f'<figure class="chart" data-series="{escape(name)}"><figcaption>{escape(look.title)} '
        f'<span class="chart__readout">({escape(readout)})</span></figcaption>{svg}</figure>'
    )
