"""Problem statements and notes to HTML: CommonMark + tables, `$...$` / `$$...$$` kept as TeX for KaTeX in the
browser, fenced code highlighted with Pygments. Raw HTML in the source is escaped, never passed through;
the one exception is the chart placeholder `<div class="chart" data-series="NAME"></div>` on a line
of its own, which is re-emitted from its parsed series name (so nothing
else of that line reaches the page)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

CHART_PLACEHOLDER = re.compile(
    r'^\s{0,3}<div class="chart" data-series="([A-Za-z0-9_-]{1,64})">\s*</div>\s*$'
)


def render_markdown(source: str) -> str:
    """Safe HTML for a Markdown document written by a problem author."""
    html: str = _parser().render(source)
    return html


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    dollarmath_plugin(md, allow_labels=False, allow_space=True, allow_digits=False, double_inline=True)
    md.add_render_rule("math_inline", _render_math_inline)
    md.add_render_rule("math_inline_double", _render_math_display)
    md.add_render_rule("math_block", _render_math_display)
    md.block.ruler.before("html_block", "chart_placeholder", _chart_placeholder_rule)
    md.add_render_rule("chart_placeholder", _render_chart_placeholder)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    return md


def _render_math_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return f'<span class="math inline">{html.escape(tokens[idx].content, quote=False)}</span>'


def _render_math_display(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tex = html.escape(tokens[idx].content.strip(), quote=False)
    return f'<div class="math display">{tex}</div>\n'


def _chart_placeholder_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False  # indented code, not a placeholder
    line = state.src[state.bMarks[start_line] + state.tShift[start_line] : state.eMarks[start_line]]
    match = CHART_PLACEHOLDER.match(line)
    if match is None:
        return False
    if not silent:
        token = state.push("chart_placeholder", "div", 0)
        token.meta = {"series": match.group(1)}
        token.map = [start_line, start_line + 1]
    state.line = start_line + 1
    return True


def _render_chart_placeholder(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return f'<div class="chart" data-series="{html.escape(tokens[idx].meta["series"])}"></div>\n'


def _render_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else "text"
    return highlight_code(token.content, language)


INLINE_MATH = re.compile(r"\$(?P<tex>[^$\n]+?)\$")


def inline_math(text: str) -> str:
    """One line of plain text (a problem's summary) as HTML, its `$...$` as `<span class="math inline">` for the
    bundle's KaTeX, everything else escaped. A lone `$` stays a dollar sign."""
    parts: list[str] = []
    position = 0
    for match in INLINE_MATH.finditer(text):
        parts.append(html.escape(text[position : match.start()]))
        parts.append(f'<span class="math inline">{html.escape(match.group("tex").strip())}</span>')
        position = match.end()
    parts.append(html.escape(text[position:]))
    return "".join(parts)


def plain_text_of_math(text: str) -> str:
    """The same line for search and for places that cannot render TeX: the `$` signs dropped."""
    return INLINE_MATH.sub(lambda match: match.group("tex"), text)


def highlight_code(code: str, language: str) -> str:
    """`<div class="highlight"><pre>...</pre></div>` with Pygments token classes; unknown languages as
    plain text."""
    try:
        lexer: Any = get_lexer_by_name(language)
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return str(highlight(code, lexer, _formatter()))


@cache
def _formatter() -> HtmlFormatter[str]:
    return HtmlFormatter(cssclass="highlight", nowrap=False)
