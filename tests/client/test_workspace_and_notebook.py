"""What `paperlab fetch` and `paperlab notebook` write, and what they refuse to overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from paperlab.errors import UsageError
from paperlab.notebook import build_notebook, write_notebook
from paperlab.schemas import FunctionInfo, Problem
from paperlab.workspace import MARKER, problem_for, read_source, script_for, write_workspace

PROBLEM = Problem(
    slug="moco", title="MoCo", summary="s", difficulty="medium", tags=[],
    functions=[FunctionInfo(name="moco_loss", signature="moco_loss(q, k)", summary=""),
               FunctionInfo(name="enqueue", signature="enqueue(queue, keys)", summary="")],
    check_count=3, statement="# MoCo\n\nThe loss is $-\\log p$.\n", starter="from helpers import check\n\n\n"
    "def moco_loss(q, k):\n    raise NotImplementedError\n", helpers="def check():\n    pass\n",
    scratch="print(moco_loss(1, 2))\n",
)  # fmt: skip


def test_fetch_writes_the_statement_starter_helpers_and_try_script(tmp_path: Path) -> None:
    written = write_workspace(PROBLEM, tmp_path / "moco", url="http://lab.example")
    assert [path.name for path in written] == ["statement.md", "moco.py", "helpers.py", "try_moco.py"]
    assert (tmp_path / "moco" / "moco.py").read_text() == PROBLEM.starter
    assert (tmp_path / "moco" / "helpers.py").read_text() == PROBLEM.helpers
    assert (tmp_path / "moco" / "try_moco.py").read_text().endswith(PROBLEM.scratch)
    marker = json.loads((tmp_path / "moco" / MARKER).read_text())
    assert marker == {"problem": "moco", "solution": "moco.py", "script": "try_moco.py", "url": "http://lab.example"}


def test_a_problem_without_helpers_gets_no_helpers_file(tmp_path: Path) -> None:
    written = write_workspace(Problem(**{**PROBLEM.__dict__, "helpers": ""}), tmp_path, url="u")
    assert "helpers.py" not in [path.name for path in written]


def test_fetch_never_overwrites_the_learners_work_unless_forced(tmp_path: Path) -> None:
    write_workspace(PROBLEM, tmp_path, url="u")
    (tmp_path / "moco.py").write_text("my work")
    with pytest.raises(UsageError, match="Not overwriting .*moco.py"):
        write_workspace(PROBLEM, tmp_path, url="u")
    assert (tmp_path / "moco.py").read_text() == "my work"
    write_workspace(PROBLEM, tmp_path, url="u", force=True)
    assert (tmp_path / "moco.py").read_text() == PROBLEM.starter


def test_a_file_in_a_fetched_folder_knows_its_problem_and_script(tmp_path: Path) -> None:
    write_workspace(PROBLEM, tmp_path, url="u")
    solution = tmp_path / "moco.py"
    assert problem_for(solution, None) == "moco" and problem_for(solution, "other") == "other"
    assert script_for(solution, None) == tmp_path.resolve() / "try_moco.py"
    with pytest.raises(UsageError, match="Which problem is"):
        problem_for(tmp_path / "elsewhere" / "x.py", None)


def test_unreadable_sources_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "latin1.py").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(UsageError, match="is not UTF-8"):
        read_source(tmp_path / "latin1.py")
    with pytest.raises(UsageError, match="There is no file"):
        read_source(tmp_path / "missing.py")


def test_the_notebook_is_valid_nbformat_with_statement_starter_try_and_test_cells() -> None:
    notebook = nbformat.from_dict(build_notebook(PROBLEM, url="http://lab.example"))  # type: ignore[no-untyped-call]  # nbformat: untyped
    nbformat.validate(notebook)
    kinds = [(cell.cell_type, cell.source.splitlines()[0] if cell.source else "") for cell in notebook.cells]
    assert kinds == [("markdown", "# MoCo"), ("markdown", "## Your solution"), ("code", "%load_ext paperlab"),
                     ("code", "from helpers import check"), ("markdown", "## Try it"),
                     ("code", "print(moco_loss(1, 2))"), ("markdown", "## Run the tests"),
                     ("code", "%paperlab moco")]  # fmt: skip
    assert notebook.metadata.kernelspec.name == "python3"


def test_the_notebook_goes_with_helpers_and_overwrites_nothing(tmp_path: Path) -> None:
    written = write_notebook(PROBLEM, tmp_path / "moco.ipynb", url="u")
    assert [path.name for path in written] == ["moco.ipynb", "helpers.py"]
    with pytest.raises(UsageError, match="Not overwriting"):
        write_notebook(PROBLEM, tmp_path / "moco.ipynb", url="u")
