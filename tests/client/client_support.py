"""Shared by the client's tests and the services tests that run the installed command."""

from __future__ import annotations

import textwrap

# A sitecustomize.py for the command's process: importing torch, numpy, IPython or the server's packages fails,
# as on a learner's machine that has only the client installed.
NO_SERVER_IMPORTS = textwrap.dedent("""
    import importlib.abc, sys

    class RefuseServerPackages(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {"torch", "numpy", "app", "grader", "IPython"}:
                raise ImportError(f"the paperlab command imported {name}")
            return None

    sys.meta_path.insert(0, RefuseServerPackages())
""")
