"""`paperlab notebook SLUG`: a ready notebook (nbformat 4 JSON, written directly, so the command needs no
Jupyter package): the statement, the starter to fill in, the "Try it" script, and a test cell (`%paperlab SLUG`,
which sends the functions the notebook defined). helpers.py goes beside it, where the starter imports it from."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from paperlab.errors import UsageError
from paperlab.schemas import Problem


def _cell(kind: str, source: str, **extra: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": uuid.uuid4().hex[:8], "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    cell.update(extra)
    return cell


def build_notebook(problem: Problem, *, url: str) -> dict[str, Any]:
    slug = problem.slug
    functions = ", ".join(f"`{function.name}`" for function in problem.functions)
    cells = [
        _cell("markdown", problem.statement),
        _cell("markdown", f"## Your solution\n\nWrite {functions} in the cell below and run it. The validation "
              "helpers it imports are in `helpers.py`, beside this notebook. Then run the test cell at the end: "
              f"it sends the functions this notebook defines to PaperLab ({url}), and shows each check's verdict "
              "here, as the problem's page does."),
        _cell("code", "%load_ext paperlab"),
        _cell("code", problem.starter.rstrip("\n")),
        _cell("markdown", "## Try it\n\nCall your functions on small inputs of your own. This runs here, in the "
              "notebook; nothing is graded."),
        _cell("code", problem.scratch.rstrip("\n")),
        _cell("markdown", f"## Run the tests\n\n`%paperlab {slug}` sends the latest version of every function, "
              "class and import this notebook has run (or, as a cell magic, `%%paperlab "
              f"{slug}` sends that cell's code alone). `%paperlab_login {url}` signs this notebook in if "
              "`paperlab login` has not."),
        _cell("code", f"%paperlab {slug}"),
    ]
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "paperlab": {"problem": slug, "url": url},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_notebook(problem: Problem, path: Path, *, url: str, force: bool = False) -> list[Path]:
    """The notebook, and helpers.py beside it when the problem has one; refuses to overwrite without `force`."""
    written = [path]
    helpers = path.parent / "helpers.py"
    if problem.helpers:
        written.append(helpers)
    existing = [p for p in written if p.exists()]
    if existing and not force:
        raise UsageError(f"Not overwriting {', '.join(map(str, existing))}: your work may be in there. Pass --force "
                         "to replace them, or name another notebook.")  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(build_notebook(problem, url=url), indent=1, ensure_ascii=False) + "\n")
    if problem.helpers:
        helpers.write_text(problem.helpers)
    return written
