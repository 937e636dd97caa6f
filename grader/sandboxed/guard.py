"""The guard: an audit hook each child installs before the submission loads (once added, no code can remove it),
and the seal that hides the worker from the submission."""

from __future__ import annotations

import _thread
import posix
import sys
from typing import Any

from grader.sandboxed import importer

_get_ident = _thread.get_ident
_fspath = posix.fspath
_lstat = posix.lstat
_readlink = posix.readlink
_S_IFLNK = 0o120000
_S_IFMT = 0o170000


ALWAYS_REFUSED = frozenset({
    "sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.addaudithook",
    "sys.settrace", "sys.setprofile", "cpython._PySys_ClearAuditHooks",
})
# Modules that turn an integer into memory (`ffi.cast("char *", id(x))`). The sandbox does not mount them (grader/
# sandbox.py, RUNTIME_DISTRIBUTIONS); refused here too, should an interpreter's own site-packages carry them.
RAW_MEMORY_MODULES = frozenset({"cffi", "_cffi_backend", "ctypes", "_ctypes"})
# ctypes' names that turn an integer into memory without an audit event (cast, pointer types, pointer-sized
# strings), replaced in the child by refusals; the worker used ctypes only in the template (prctl).
CTYPES_CLOSED = ("cast", "memmove", "memset", "c_char_p", "c_wchar_p", "c_void_p", "POINTER", "pointer",
                 "CFUNCTYPE", "PYFUNCTYPE", "py_object", "pythonapi", "cdll", "pydll", "CDLL", "PyDLL")
# The ctypes modules torch.optim's first use imports (through torch._dynamo). A template that does not warm an
# optimiser loads them itself, so that a submission's first optimiser step imports torch._dynamo as it does in a
# warm template's child, where the guard would refuse them; their aliases of CTYPES_CLOSED are closed as the rest.
CTYPES_FOR_DYNAMO = ("ctypes.util", "ctypes.wintypes")
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_code", "gi_code", "f_back"})
PROC_REFUSED = frozenset({"mem", "maps", "smaps", "pagemap", "map_files", "mountinfo", "mounts", "mountstats",
                          "environ", "syscall", "stack"})


class Guard:
    """The audit hook the child installs before the submission loads."""

    def __init__(self, main_thread: int) -> None:
        self.main_thread = main_thread
        # Set around the main thread's own walk over a traceback's frames, which calls C getters only: no learner
        # code can run meanwhile (a submission cannot add an audit hook: ours refuses it, and refused hooks
        # are dropped).
        self.trusted = False

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event in ALWAYS_REFUSED or event.startswith("ctypes."):
            raise PermissionError(f"{event} is not available to submissions")
        if event == "open":
            self._check_open(args[0])
        elif event == "import":
            if type(args[0]) is str and args[0].partition(".")[0] in RAW_MEMORY_MODULES:
                raise PermissionError(f"import {args[0]}: modules that give raw memory are not available")
        elif event == "sys._getframe" or event == "sys._getframemodulename":
            if _get_ident() == self.main_thread:
                raise PermissionError("frames of the grader's thread are not available to submissions")
        elif event == "object.__getattr__" and args[1] in FRAME_ATTRIBUTES:
            if _get_ident() == self.main_thread and not self.trusted:
                raise PermissionError("frames of the grader's thread are not available to submissions")

    def _check_open(self, path: Any) -> None:
        if type(path) is int:
            return
        if type(path) is not str and type(path) is not bytes:
            path = _fspath(path)  # a path-like object (its __fspath__ is the learner's to run)
        if type(path) is bytes:
            path = path.decode(errors="replace")
        if type(path) is not str:
            raise PermissionError("open() needs a str or bytes path here")
        if not path.startswith("/"):  # relative paths may be relative to any directory descriptor
            raise PermissionError(f"open {path!r}: use an absolute path")
        parts = _resolve(path)
        if parts and parts[0] == "proc" and any(part in PROC_REFUSED for part in parts):
            raise PermissionError(f"open {path!r}: process memory and mount tables are not available")


def _resolve(path: str, depth: int = 0) -> list[str]:
    """The components of `path` with every symbolic link followed (C calls only: posix.lstat and readlink)."""
    done: list[str] = []
    pending = [part for part in path.split("/") if part]
    while pending:
        part = pending.pop(0)
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        candidate = "/" + "/".join([*done, part])
        try:
            is_link = (_lstat(candidate).st_mode & _S_IFMT) == _S_IFLNK
        except OSError:
            is_link = False
        if is_link and depth < 40:
            target = _readlink(candidate)
            if done and done[0] == "proc" and len(done) == 1 and part in ("self", "thread-self"):
                done.append(part)  # /proc/self: keep the word, what follows decides
                continue
            if target.startswith("/"):
                done = []
            pending = [p for p in target.split("/") if p] + pending
            depth += 1
            continue
        done.append(part)
    return done


def ctypes_aliases(ctypes: Any) -> list[tuple[Any, str]]:
    """Every (module, name) in sys.modules other than `ctypes` that is bound to one of ctypes' CTYPES_CLOSED
    objects: ctypes._endian star-imports them all, ctypes.wintypes calls c_char_p LPCSTR, torch.xpu imports cast.
    Called once in the template after its warm-up (it walks every module's namespace: 15 ms); each child closes
    them with the names in ctypes. A module the submission imports later can only bind the closed ones."""
    closed = {id(getattr(ctypes, name)) for name in CTYPES_CLOSED}
    found = []
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if module is ctypes or type(namespace) is not dict:
            continue
        found += [(module, name) for name, value in list(namespace.items())
                  if id(value) in closed and type(name) is str]
    return found


def seal(main_thread: int) -> Guard:
    """Hide the worker from the submission and install the guard. Nothing of the worker stays in sys.modules or
    importable (importer.forget), and its entry point's folder left sys.path when it started."""
    importer.forget()
    guard = Guard(main_thread)
    sys.addaudithook(guard)
    return guard
