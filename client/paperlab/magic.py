"""The Jupyter extension: `%load_ext paperlab`, then

    %%paperlab SLUG        grade this cell's code
    %paperlab SLUG         grade the functions (and classes, imports, UPPER_CASE constants) the notebook has run,
                           the latest version of each
    %paperlab_login URL    sign this notebook in (asks for the token), when `paperlab login` has not

The verdicts appear under the cell: a progress line while the checks finish, then the server's verdict panel
(the problem page's summary and per-check verdicts, expected against got, and the notes' charts once solved:
GET /api/submissions/{id}/embed). The site and token are those of `paperlab login`, or PAPERLAB_URL and
PAPERLAB_TOKEN. Only this module needs IPython."""

from __future__ import annotations

import ast
import getpass
import html
from collections.abc import Iterable
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.display import HTML, DisplayHandle, display

from paperlab.api import Client
from paperlab.credentials import Credentials, load_credentials, normalise_url, save_credentials
from paperlab.errors import PaperLabError, UsageError
from paperlab.events import SOLVED_EARLY, CallEvent, CheckEvent, ReportEvent, StatusEvent, VerdictEvent
from paperlab.schemas import Problem

# Calls IPython writes for magics in a cell's transformed source: those cells are commands, not the solution.
MAGIC_CALLS = ("get_ipython()",)
PROGRESS_STYLE = (
    "font-family:system-ui,sans-serif;font-size:14px;padding:.5rem .8rem;border:1px solid #dfe2e8;"
    "border-radius:8px;max-width:60rem;background:#eef0fc;color:#25339a"
)


def register(ipython: Any) -> None:
    ipython.register_magics(PaperLabMagics)


@magics_class
class PaperLabMagics(Magics):  # type: ignore[misc]  # IPython ships no type information
    @line_cell_magic  # type: ignore[misc]
    def paperlab(self, line: str, cell: str | None = None) -> None:
        slug = line.strip()
        handle = display(HTML(_progress("Connecting to PaperLab…")), display_id=True)
        try:
            if not slug or " " in slug:
                raise UsageError("Name the problem: `%paperlab SLUG` or `%%paperlab SLUG` (see `paperlab list`).")
            credentials = load_credentials()

            def waiting(seconds: int, reason: str) -> None:
                _update(handle, _progress(f"{html.escape(reason)} Waiting {seconds} s, as the server asks…"))

            with Client(credentials.url, credentials.token, on_wait=waiting) as client:
                problem = client.problem(slug)
                code = cell if cell is not None and cell.strip() else notebook_code(self._history(), problem)
                _grade(client, problem, code, handle)
        except PaperLabError as exc:
            _update(handle, _failure(exc.message))

    @line_magic  # type: ignore[misc]
    def paperlab_login(self, line: str) -> None:
        url = normalise_url(line) if line.strip() else ""
        try:
            if not url:
                raise UsageError("Name the site: `%paperlab_login https://paperlab.example.edu`.")
            token = getpass.getpass(f"API token from {url}/continue (not shown): ").strip()
            with Client(url, token) as client:
                info = client.current_token()
            save_credentials(Credentials(url=url, token=token))
            display(HTML(_progress(f"Logged in to {html.escape(url)} with the token “{html.escape(info.name)}”.")))
        except PaperLabError as exc:
            display(HTML(_failure(exc.message)))

    def _history(self) -> list[str]:
        """The cells this kernel has run, in order, as Python (IPython's `In`), without the one running now."""
        shell = self.shell
        cells = list(shell.user_ns.get("In", [])) if shell is not None else []
        return cells[:-1] if cells else []


def _grade(client: Client, problem: Problem, code: str, handle: DisplayHandle) -> None:
    submission_id = client.submit(problem.slug, code)
    done: dict[str, str] = {}
    total, note = problem.check_count, "Queued: waiting for a free grader…"
    for event in client.follow(submission_id):
        if isinstance(event, StatusEvent):
            total = event.total or total
            note = "Running checks…" if event.status == "running" else note
        elif isinstance(event, CheckEvent):
            done[event.check.id] = event.check.status
            total, note = event.total or total, SOLVED_EARLY if note == SOLVED_EARLY else "Running checks…"
        elif isinstance(event, CallEvent) and event.function:
            note = f"{event.function} has been running for {event.running_s:.0f} s"
        elif isinstance(event, VerdictEvent) and event.solved:
            note = SOLVED_EARLY
        elif isinstance(event, ReportEvent):
            _update(handle, client.embed(submission_id))
            return
        failing = sum(1 for status in done.values() if status in ("failed", "error"))
        _update(handle, _progress(f"{html.escape(problem.title)}: {note}", done=len(done), total=total,
                                  failing=failing))  # fmt: skip


def notebook_code(cells: Iterable[str], problem: Problem) -> str:
    """What a notebook defined, as one module: its imports (in order, once each), then the latest definition
    of each function, class and UPPER_CASE constant. Cells that do not parse, and magics, are skipped."""
    imports: dict[str, None] = {}
    definitions: dict[str, str] = {}
    for source in cells:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                imports.setdefault(ast.unparse(node), None)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                definitions.pop(node.name, None)  # a redefinition moves to where it was last made
                definitions[node.name] = _segment(source, node)
            elif _constant_name(node) is not None and not any(call in ast.unparse(node) for call in MAGIC_CALLS):
                name = _constant_name(node)
                assert name is not None
                definitions.pop(name, None)
                definitions[name] = _segment(source, node)
    missing = [function.name for function in problem.functions if function.name not in definitions]
    if missing:
        raise UsageError(
            f"This notebook has not defined {', '.join(missing)} yet: run the cell that defines "
            f"{'it' if len(missing) == 1 else 'them'} first, or put your code in the test cell "
            f"(`%%paperlab {problem.slug}` on its first line)."
        )
    return "\n".join(imports) + "\n\n\n" + "\n\n\n".join(definitions.values()) + "\n"


def _constant_name(node: ast.stmt) -> str | None:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    if len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id.isupper():
        return targets[0].id
    return None


def _segment(source: str, node: ast.stmt) -> str:
    """The node's source with its decorators, as the learner wrote it."""
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(decorator.lineno for decorator in decorators)])
    lines = source.splitlines()
    return "\n".join(lines[first - 1 : node.end_lineno])


def _update(handle: DisplayHandle | None, markup: str) -> None:
    if handle is not None:
        handle.update(HTML(markup))
    else:
        display(HTML(markup))


def _progress(text: str, *, done: int = 0, total: int = 0, failing: int = 0) -> str:
    bar = (f' <progress max="{total}" value="{done}" style="vertical-align:middle"></progress> {done} / {total} checks'
           + (f" · {failing} failing" if failing else "")) if total else ""  # fmt: skip
    return f'<div class="paperlab-progress" style="{PROGRESS_STYLE}">{text}{bar}</div>'


def _failure(message: str) -> str:
    style = PROGRESS_STYLE.replace("background:#eef0fc;color:#25339a", "background:#fdecea;color:#b42318")
    return f'<div class="paperlab-error" style="{style}"><strong>PaperLab:</strong> {html.escape(message)}</div>'
