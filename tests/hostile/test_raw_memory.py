"""Routes from an integer to memory. With one, a submission reads and writes any object of the worker's (the key
its replies are signed with included): the facts could then be forged. The sandbox holds torch, numpy and what
they need, not the app's virtualenv, so cffi (which made it one import: `ffi.cast("char *", id(x))`) is not
there at all; the names that would bring one back are refused too."""

from __future__ import annotations

import json
import textwrap

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from tests.hostile.hostile_support import REPO, messages

ECHO_DIR = REPO / "tests" / "fixtures" / "problems" / "echo"


@pytest.fixture(scope="module")
def echo() -> Problem:
    return load_problem(ECHO_DIR)


def probe(pool: WorkerPool, echo: Problem, body: str) -> object:
    code = "def probe(x):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    message = messages(grade(echo, code, pool=pool))["probe.echo"]
    assert message.startswith("returned: "), message
    return json.loads(message.removeprefix("returned: "))


def test_cffi_cannot_be_imported(sandbox_pool: WorkerPool, echo: Problem) -> None:
    found = probe(sandbox_pool, echo, '''
        import importlib
        outcomes = []
        for name in ("cffi", "_cffi_backend"):
            try:
                importlib.import_module(name)
                outcomes.append(name + ": imported")
            except BaseException as exc:
                outcomes.append(name + ": " + type(exc).__name__)
        return outcomes
    ''')
    assert isinstance(found, list) and len(found) == 2
    assert all(outcome.split(": ")[1] in ("ModuleNotFoundError", "PermissionError") for outcome in found), found


def test_no_cffi_library_is_anywhere_in_the_sandbox(sandbox_pool: WorkerPool, echo: Problem) -> None:
    """Refusing the import is not enough by itself: a library file can be loaded by path. None is mounted."""
    found = probe(sandbox_pool, echo, '''
        import os, sys
        hits = []
        for top in sorted(set(p for p in sys.path if p.startswith("/"))):
            for root, dirs, files in os.walk(top):
                hits += [os.path.join(root, f) for f in files if "_cffi_backend" in f]
                hits += [root for f in files if f == "__init__.py" and os.path.basename(root) == "cffi"]
        return hits
    ''')
    assert found == []


def test_the_site_directory_holds_only_the_runtime(sandbox_pool: WorkerPool, echo: Problem) -> None:
    found = probe(sandbox_pool, echo, '''
        import os, sys
        return sorted(name for p in sys.path if p.startswith("/opt/site-packages") for name in os.listdir(p))
    ''')
    assert isinstance(found, list)
    tops = {str(name).split("-")[0] for name in found}
    assert {"torch", "numpy"} <= tops
    assert not {"cffi", "app", "grader", "fastapi", "sqlalchemy", "pydantic", "argon2"} & tops, found


ROUTES = '''
    import numpy, torch
    target = bytearray(b"secret-bytes")
    address = torch.frombuffer(target, dtype=torch.uint8).data_ptr()

    class Face:
        __array_interface__ = {"data": (address, False), "shape": (12,), "typestr": "|u1", "version": 3}

    routes = {
        "numpy __array_interface__": lambda: bytes(numpy.asarray(Face())),
        "torch._C._construct_storage_from_data_pointer": lambda: bytes(torch.empty(0, dtype=torch.uint8).set_(
            torch._C._construct_storage_from_data_pointer(address, torch.device("cpu"), 12)).tolist()),
        "torch._from_blob": lambda: bytes(torch._from_blob(address, (12,), dtype=torch.uint8).tolist()),
        "torch._C._VariableFunctions._from_blob": lambda: bytes(
            torch._C._VariableFunctions._from_blob(address, (12,), dtype=torch.uint8).tolist()),
    }
    found = {}
    for name, route in routes.items():
        try:
            found[name] = "reads memory" if route() == bytes(target) else "other bytes"
        except BaseException as exc:
            found[name] = type(exc).__name__
    return found
'''


def test_each_address_route_is_closed_or_named_in_the_threat_model(sandbox_pool: WorkerPool, echo: Problem) -> None:
    """What remains open is what the threat model says remains open: when a route closes (or a new torch opens
    one), this test fails until docs/engine.md says so."""
    found = probe(sandbox_pool, echo, ROUTES)
    assert found == {
        "numpy __array_interface__": "reads memory",  # no switch in numpy: named in docs/engine.md
        "torch._C._construct_storage_from_data_pointer": "PermissionError",
        "torch._from_blob": "PermissionError",
        "torch._C._VariableFunctions._from_blob": "reads memory",  # a read-only attribute of a C type: named
    }
    threat_model = (REPO / "docs" / "engine.md").read_text()
    assert "__array_interface__" in threat_model and "_VariableFunctions._from_blob" in threat_model


def attempt_each(pool: WorkerPool, echo: Problem, setup: str, routes: dict[str, str]) -> object:
    """Run each route's expression in the sandbox after `setup`, with `target` a bytearray: per route,
    [name, "read <what it read>"] or [name, "<exception>: <message>"]."""
    listed = "".join(f"    ({name!r}, lambda: {expression}),\n" for name, expression in routes.items())
    return probe(pool, echo, (
        f"{setup}\n"
        'target = bytearray(b"secret-bytes")\n'
        "outcomes = []\n"
        f"for name, attempt in [\n{listed}]:\n"
        "    try:\n"
        '        outcomes.append([name, "read " + repr(attempt())])\n'
        "    except BaseException as exc:\n"
        '        outcomes.append([name, type(exc).__name__ + ": " + str(exc)[:80]])\n'
        "return outcomes\n"
    ))


def test_the_ctypes_that_numpy_and_torch_imported_is_refused_at_every_use(sandbox_pool: WorkerPool,
                                                                          echo: Problem) -> None:
    """torch and numpy import ctypes before the submission loads, so `torch.ctypes` and `numpy.ctypeslib.ctypes`
    hand it over without an import; each use of it must still be refused (ctypes raises an audit event for each)."""
    c = "numpy.ctypeslib.ctypes"  # reached inside each attempt: numpy.ctypeslib may not load at all
    found = attempt_each(sandbox_pool, echo, "import numpy, torch", {
        "torch.ctypes.string_at": "torch.ctypes.string_at(id(target), 8)",
        "ctypeslib cast": f"{c}.cast(id(target), {c}.POINTER({c}.c_char))[0]",
        "ctypeslib from_address": f"{c}.c_char.from_address(id(target)).value",
        "ctypeslib as_array": f"numpy.ctypeslib.as_array({c}.cast(id(target), {c}.POINTER({c}.c_ubyte)), "
                              "shape=(8,)).tolist()",
    })
    assert isinstance(found, list) and len(found) == 4
    # Refused (PermissionError), or numpy.ctypeslib no longer loads at all (it subclasses the closed c_void_p)
    assert not [outcome for _, outcome in found if outcome.startswith("read")], found
    assert found[0][1].startswith("PermissionError"), found


def test_the_closed_ctypes_names_are_closed_under_every_other_name_too(sandbox_pool: WorkerPool,
                                                                     echo: Problem) -> None:
    """ctypes binds its pointer types and cast under other names in modules the template loaded before any
    submission: ctypes._endian (a star import of ctypes), ctypes.wintypes (LPCSTR is c_char_p; torch.optim's
    first use imports it, and the warm template makes one), torch.xpu (cast, pointer, c_void_p), _ctypes.
    Each alias must be refused as the name in ctypes is."""
    setup = 'import sys, torch\nendian, wintypes = sys.modules["ctypes._endian"], sys.modules["ctypes.wintypes"]'
    found = attempt_each(sandbox_pool, echo, setup, {
        "ctypes._endian.c_char_p": "endian.c_char_p(id(target)).value",
        "ctypes._endian.cast": "endian.cast(id(target), endian.POINTER(endian.c_char))[0]",
        "ctypes.wintypes.LPCSTR": "wintypes.LPCSTR(id(target)).value",
        "ctypes.wintypes.LPCWSTR": "wintypes.LPCWSTR(id(target)).value",
        "ctypes.wintypes.LPVOID": "wintypes.LPVOID(id(target)).value",
        "torch.xpu.cast": "torch.xpu.cast(id(target), torch.xpu.c_void_p).value",
        "_ctypes.POINTER": 'sys.modules["_ctypes"].POINTER(endian.c_char)',
    })
    assert isinstance(found, list) and len(found) == 7
    assert [name for name, outcome in found if not outcome.startswith("PermissionError")] == [], found


def test_ctypes_classes_stay_reachable_through_the_subclass_tree(sandbox_pool: WorkerPool, echo: Problem) -> None:
    """Named in docs/engine.md ("What remains forgeable"): torch has imported ctypes, so its C classes are among
    object's subclasses, and one declared from _SimpleCData with a pointer type code reads memory. This test
    pins that the route exists; if it ever fails, the threat model can drop the paragraph."""
    found = probe(sandbox_pool, echo, '''
        def every(cls):
            for sub in type.__subclasses__(cls):
                yield sub
                yield from every(sub)
        base = next((c for c in every(object) if c.__name__ == "_SimpleCData"), None)
        return base is not None
    ''')
    assert found is True
