"""grader.sandboxed.importer: the worker's modules come from its private finder, and `forget` takes every one of
them out of sys.modules (in a fresh interpreter, as the worker's entry point sets it up)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# What the entry point does (grader/sandboxed/worker.py): load the importer by hand under its own name, install
# its finder, import the worker's modules; then the seal's `forget`.
SCRIPT = textwrap.dedent("""
    import builtins, importlib.util, json, sys
    root, = sys.argv[1:]
    sys.path[:] = [entry for entry in sys.path if entry not in ("", root)]  # as in the sandbox: not importable
    name = "grader.sandboxed.importer"
    spec = importlib.util.spec_from_file_location(name, root + "/grader/sandboxed/importer.py")
    importer = importlib.util.module_from_spec(spec)
    sys.modules[name] = importer
    spec.loader.exec_module(importer)
    finder = importer.install(root, vars(builtins))
    import grader.protocol, grader.sandboxed.rlimits, grader.sandboxed.wipe
    import grader.sandboxed.rlimits
    sys.modules["__mp_main__"] = sys.modules["__main__"]
    before = sorted(name for name in sys.modules if name.split(".")[0] == "grader")
    importer.forget()
    after = sorted(name for name in sys.modules if name.split(".")[0] == "grader" or name.endswith("__main__"))
    live = grader.sandboxed.rlimits
    try:  # this interpreter can still import the judge's own copy (its virtualenv has it); the sandbox cannot
        import grader.sandboxed.rlimits as imported
        again = "the worker's module" if imported is live else "another module"
    except ImportError as exc:
        again = type(exc).__name__
    print(json.dumps({"served": sorted(finder.served), "before": before, "after": after, "again": again,
                      "main": sorted(vars(sys.modules["__main__"]))}))
""")


def forgetting() -> dict[str, list[str] | str]:
    completed = subprocess.run([sys.executable, "-I", "-c", SCRIPT, str(REPO)], capture_output=True, text=True,
                               timeout=120, check=True)
    return json.loads(completed.stdout)  # type: ignore[no-any-return]


def test_the_finder_records_every_module_it_serves_and_forget_takes_them_all_out() -> None:
    found = forgetting()
    assert "grader.protocol.framing" in found["before"] and "grader.sandboxed.rlimits" in found["before"]
    assert sorted(found["served"]) == found["before"]  # the importer's own name included
    assert found["after"] == ["__main__"]  # and __main__ is a fresh, empty module
    assert found["main"] == ["__doc__", "__loader__", "__name__", "__package__", "__spec__"]


def test_importing_a_forgotten_module_never_gives_the_workers_live_one() -> None:
    assert forgetting()["again"] in ("ModuleNotFoundError", "another module")
