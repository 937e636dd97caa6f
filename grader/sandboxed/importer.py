"""The worker's own importer: this package's modules and the protocol, loaded with the worker's private builtins.

Each module looks its builtins up in the dictionary the entry point copied before any learner code existed, so
rebinding `builtins.len` or `builtins.type` reaches none of the worker's code. Python's own importer would give
every module the live builtins, so the names the worker needs (`grader`, `grader.protocol` and
`grader.sandboxed.*`) are served by this finder, first on sys.meta_path, from the folder that holds the copied
files. Any other `grader.*` name is refused: the judge side never runs here.

`forget` takes the finder off sys.meta_path and the modules out of sys.modules before the submission loads, so the
learner's code cannot reach the worker's live modules by importing them (their files it may read: they hold no
secret).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

PACKAGES = ("grader", "grader.sandboxed")
SHARED = "grader.protocol"  # the wire format: the one package of the judge side that runs here too


class PrivateLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, private_builtins: dict[str, Any]) -> None:
        super().__init__(fullname, path)
        self.private_builtins = private_builtins

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["__builtins__"] = self.private_builtins  # exec keeps globals' own builtins
        super().exec_module(module)


class PrivateFinder:
    """Finds the worker's modules under `root`, the folder that holds `grader/`."""

    def __init__(self, root: str, private_builtins: dict[str, Any]) -> None:
        self.root = root
        self.private_builtins = private_builtins
        # Every name this finder has served, and this module's own (the entry point registers it by hand):
        # what `forget` takes out of sys.modules.
        self.served: list[str] = [__name__]

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in PACKAGES:  # bare packages: the real grader/__init__.py is the judge's front door
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [os.path.join(self.root, *fullname.split("."))]
            self.served.append(fullname)
            return spec
        if not fullname.startswith("grader."):
            return None
        base = os.path.join(self.root, *fullname.split("."))
        package = os.path.join(base, "__init__.py")
        ours = fullname == SHARED or fullname.startswith((SHARED + ".", "grader.sandboxed."))
        if ours and os.path.isfile(package):
            self.served.append(fullname)
            loader = PrivateLoader(fullname, package, self.private_builtins)
            return importlib.util.spec_from_file_location(fullname, package, loader=loader,
                                                          submodule_search_locations=[base])
        if ours and os.path.isfile(base + ".py"):
            self.served.append(fullname)
            loader = PrivateLoader(fullname, base + ".py", self.private_builtins)
            return importlib.util.spec_from_file_location(fullname, base + ".py", loader=loader)
        raise ImportError(f"{fullname} does not run inside the sandbox", name=fullname)


def install(root: str, private_builtins: dict[str, Any]) -> PrivateFinder:
    finder = PrivateFinder(root, private_builtins)
    sys.meta_path.insert(0, finder)
    return finder


def forget() -> None:
    """Nothing of the worker stays importable or in sys.modules (`import __main__` gives an empty module).

    Only the names the private finder served are taken out, rather than every entry of sys.modules checked: a
    scan reads every module object of a freshly forked child, and each read writes its reference count, so the
    child copies a page its template shared with it (8 ms of a submission's load on a 2-core machine). Every
    module of the worker's is loaded through the finder: any other `grader.*` name it refuses."""
    finders = [finder for finder in sys.meta_path if type(finder) is PrivateFinder]
    sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder) is not PrivateFinder]
    for finder in finders:
        for name in finder.served:
            sys.modules.pop(name, None)
    main = sys.modules.get("__main__")
    if main is not None and sys.modules.get("__mp_main__") is main:  # multiprocessing's alias of __main__
        del sys.modules["__mp_main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
