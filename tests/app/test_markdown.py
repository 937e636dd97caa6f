"""Statements and notes: math kept for KaTeX, code highlighted, raw HTML never passed through."""

from __future__ import annotations

import pytest

from app.markdown import render_markdown


def test_inline_and_display_math_keep_escaped_tex() -> None:
    html = render_markdown("Let $a < b$.\n\n$$\n\\frac{x}{y} & z\n$$\n")
    assert '<span class="math inline">a &lt; b</span>' in html
    assert '<div class="math display">\\frac{x}{y} &amp; z</div>' in html


def test_fenced_code_is_highlighted_with_pygments_classes() -> None:
    html = render_markdown("```python\ndef f(x):\n    return x  # <b>\n```\n")
    assert html.startswith('<div class="highlight"><pre>')
    assert '<span class="k">def</span>' in html and "&lt;b&gt;" in html and "<b>" not in html


def test_unknown_languages_are_plain_text() -> None:
    assert '<div class="highlight">' in render_markdown("```notalanguage\nx\n```\n")


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("<script>alert(1)</script>", id="script-block"),
        pytest.param("text <img src=x onerror=alert(1)> text", id="inline-html"),
        pytest.param('<div class="chart" data-series="loss" onclick="alert(1)"></div>', id="chart-with-extras"),
        pytest.param('<div class="chart" data-series="a&quot;b"></div>', id="chart-bad-name"),
        pytest.param("[click](javascript:alert(1))", id="javascript-link"),
    ],
)
def test_raw_html_is_escaped(source: str) -> None:
    html = render_markdown(source)
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert 'onclick="' not in html  # an attribute with a raw quote exists only inside a real tag
    assert '<div class="chart"' not in html


def test_the_chart_placeholder_is_the_one_html_allowed() -> None:
    html = render_markdown('Charts:\n\n<div class="chart" data-series="param_distance"></div>\n')
    assert '<div class="chart" data-series="param_distance"></div>' in html


def test_tables_render() -> None:
    assert "<table>" in render_markdown("| a | b |\n| - | - |\n| 1 | 2 |\n")
