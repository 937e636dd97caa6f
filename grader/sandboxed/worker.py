"""The entry point of the sandbox side: `python -I worker.py template FD sandboxed|unsandboxed optimisers|lean
[SITE_DIR ...]`.

It copies the builtins before anything else runs (every module of the worker looks its builtins up in that copy,
not in the builtins module the learner can rebind), drops its own folder from sys.path, installs the private
importer (grader/sandboxed/importer.py) and starts the template (template_server.py). The package's docstring
(grader/sandboxed/__init__.py) maps the rest.
"""

from __future__ import annotations

import builtins as _real_builtins

# Every function defined below looks its builtins up here, not in the builtins module the learner can rebind.
__builtins__ = dict(_real_builtins.__dict__)  # type: ignore[assignment]  # noqa: A001

import importlib.util  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the folder that holds grader/
USAGE = "usage: worker.py template FD sandboxed|unsandboxed optimisers|lean [SITE_DIR ...]"


def _load_importer() -> types.ModuleType:
    """importer.py itself, by hand and with the private builtins; registered under its own name, so that the
    modules it loads find it there and `forget` takes it out with them."""
    name = "grader.sandboxed.importer"
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "importer.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__["__builtins__"] = __builtins__
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    if not (len(sys.argv) >= 5 and sys.argv[1] == "template" and sys.argv[3] in ("sandboxed", "unsandboxed")
            and sys.argv[4] in ("optimisers", "lean")):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    # Its own folder first on sys.path would make every file here importable by its bare name (`import guard`).
    sys.path[:] = [entry for entry in sys.path if entry != HERE]
    import site

    for site_dir in sys.argv[5:]:  # the virtualenv's site-packages, at their sandbox paths
        site.addsitedir(site_dir)
    _load_importer().install(ROOT, __builtins__)
    from grader.sandboxed import template_server

    template_server.template(int(sys.argv[2]), sandboxed=sys.argv[3] == "sandboxed",
                             warm_optimisers=sys.argv[4] == "optimisers")


if __name__ == "__main__":
    main()
