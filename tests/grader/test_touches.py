"""A diagnosis runs only the mutants that can change the failing function: one that changes the function, or a
module-level name it reaches (directly or through other definitions), touches it; one that changes only other
definitions, moves code down the file or repeats an import does not; a change whose reach cannot be told from
its shape touches everything."""

from __future__ import annotations

import pytest

from grader.touches import changes

REFERENCE = '''"""The reference."""
import math

import torch

EPS = 1e-8
TABLE = {"scale": None}


def _norm(x):
    return x / x.norm().clamp_min(EPS)


def loss(q, k):
    return -(_norm(q) * _norm(k)).sum()


def update(a, b, m=0.9):
    return m * a + (1 - m) * b


class Box:
    def size(self):
        return math.pi
'''


def mutant(old: str, new: str) -> str:
    assert old in REFERENCE, old
    return REFERENCE.replace(old, new)


@pytest.mark.parametrize(
    "source, function, touched",
    [
        pytest.param(REFERENCE, "loss", False, id="identical-file"),
        pytest.param(mutant('"""The reference."""', '"""Forgets the sign."""'), "loss", False, id="docstring-only"),
        pytest.param(mutant("return -(", "return ("), "loss", True, id="the-function-itself"),
        pytest.param(mutant("return -(", "return ("), "update", False, id="another-function"),
        pytest.param(mutant("clamp_min(EPS)", "clamp_min(0)"), "loss", True, id="a-helper-it-calls"),
        pytest.param(mutant("clamp_min(EPS)", "clamp_min(0)"), "update", False, id="a-helper-it-does-not-call"),
        pytest.param(mutant("EPS = 1e-8", "EPS = 1e-6"), "loss", True, id="a-constant-reached-through-a-helper"),
        pytest.param(mutant("m=0.9", "m=0.99"), "update", True, id="a-default-argument"),
        pytest.param(mutant("import torch\n", "import torch\n\n\n\n"), "loss", False, id="code-moved-down"),
        pytest.param(REFERENCE + "\nimport torch\n", "loss", False, id="an-import-repeated"),
        pytest.param(mutant("import math\n", "import math\nimport numpy as math\n"), "loss", False,
                     id="an-import-the-function-does-not-reach"),
        pytest.param(mutant("import math\n", "import math\nimport numpy as math\n"), "Box", True,
                     id="an-import-a-class-method-uses"),
        pytest.param(REFERENCE + "\ndef _norm(x):\n    return x\n", "loss", True, id="a-later-def-wins"),
        pytest.param(mutant("def _norm(x):\n    return x / x.norm().clamp_min(EPS)\n", ""), "loss", True,
                     id="a-helper-deleted"),
        pytest.param(REFERENCE + "\ntorch.set_default_dtype(torch.float64)\n", "update", True,
                     id="a-call-at-import-time"),
        pytest.param(REFERENCE + "\nif True:\n    EPS = 0\n", "update", True, id="a-conditional-rebinding"),
        pytest.param(REFERENCE + '\nTABLE["scale"] = 2\n', "update", True, id="an-item-assignment"),
        pytest.param(REFERENCE + "\nfrom math import *\n", "update", True, id="a-star-import"),
        pytest.param("def loss(:\n", "update", True, id="a-syntax-error"),
    ],
)
def test_which_mutants_touch_a_function(source: str, function: str, touched: bool) -> None:
    assert changes(REFERENCE, source).touches(function) is touched


def test_an_unchanged_compound_statement_still_links_what_it_defines() -> None:
    # `loss` calls `_wrapped`, defined inside an unchanged `if`; `_wrapped` calls the changed `_norm`.
    reference = REFERENCE + "\nif True:\n    def _wrapped(x):\n        return _norm(x)\n"
    source = reference.replace("clamp_min(EPS)", "clamp_min(0)").replace(
        "return -(_norm(q) * _norm(k)).sum()", "return -(_wrapped(q) * _wrapped(k)).sum()")
    assert changes(reference, source).touches("loss")
    assert changes(reference, reference.replace("clamp_min(EPS)", "clamp_min(0)")).touches("loss")
