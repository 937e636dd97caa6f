"""What `%paperlab SLUG` sends: the notebook's imports, then the latest version of each function, class and
constant it ran, from the cells as IPython keeps them (magics already turned into Python)."""

from __future__ import annotations

import pytest

from paperlab.errors import UsageError
from paperlab.magic import notebook_code
from paperlab.schemas import FunctionInfo, Problem

PROBLEM = Problem(slug="p", title="P", summary="", difficulty="easy", tags=[], check_count=1, statement="",
                  starter="", functions=[FunctionInfo(name="loss", signature="loss(x)", summary=""),
                                         FunctionInfo(name="update", signature="update(x)", summary="")])  # fmt: skip


def test_the_latest_definitions_with_the_imports_they_need() -> None:
    cells = [
        "get_ipython().run_line_magic('load_ext', 'paperlab')\n",
        "import torch\nfrom helpers import check\n\nSCALE = 2.0\nscratch = torch.zeros(3)\n\n"
        "def loss(x):\n    return x.sum()\n",
        "import torch\n\n@torch.no_grad()\ndef update(x):\n    return x * SCALE\n",
        "print(loss(torch.ones(2)))\n",
        "def loss(x):\n    return (x * SCALE).sum()\n",
        "this is not python (",
    ]
    code = notebook_code(cells, PROBLEM)
    assert code == (
        "import torch\nfrom helpers import check\n\n\n"
        "SCALE = 2.0\n\n\n@torch.no_grad()\ndef update(x):\n    return x * SCALE\n\n\n"
        "def loss(x):\n    return (x * SCALE).sum()\n"
    )
    compile(code, "<submission>", "exec")


def test_a_function_the_notebook_has_not_defined_is_named() -> None:
    with pytest.raises(UsageError, match="has not defined update yet") as raised:
        notebook_code(["def loss(x):\n    return x\n"], PROBLEM)
    assert "%%paperlab p" in raised.value.message


def test_the_test_cell_itself_is_not_part_of_the_code() -> None:
    cells = ["def loss(x):\n    return x\n", "def update(x):\n    return x\n",
             "LIMIT = get_ipython().run_line_magic('paperlab', 'p')\n"]  # fmt: skip
    assert "get_ipython" not in notebook_code(cells, PROBLEM)
