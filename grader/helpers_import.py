"""A problem's helpers.py, importable as `helpers` while the problem's own files run (reference, checks, mutants,
solutions), and by that name only meanwhile: each problem has its own."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import ModuleType

HELPERS_MODULE = "helpers"  # problems/<slug>/helpers.py, importable as `helpers` by every solution and check


@contextlib.contextmanager
def importable_as_helpers(helpers: ModuleType | None) -> Iterator[None]:
    """`import helpers` gives this problem's helpers.py meanwhile; each problem has its own, so none stays
    importable by that name afterwards."""
    if helpers is None:
        yield
        return
    previous = sys.modules.get(HELPERS_MODULE)
    sys.modules[HELPERS_MODULE] = helpers
    try:
        yield
    finally:
        if previous is None:
            sys.modules.pop(HELPERS_MODULE, None)
        else:
            sys.modules[HELPERS_MODULE] = previous
