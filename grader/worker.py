"""The only code that runs inside the sandbox.

`python -I worker.py template FD` starts a template process: it imports and warms up torch once, then, for each
`fork` request on its control socket (which carries the job's socket as SCM_RIGHTS), forks a child that serves
exactly one submission and is never reused. The child loads the learner's code as a module and answers
`calls` requests: call F with these arguments, report what came back, what was raised, the gradients asked
for and which arguments a result shares storage with. Whether the call wrote to its arguments is not reported:
the arguments live in memory the judge maps, and the judge looks for itself.

It reports facts; it decides nothing. The judge outside holds the checks, the reference and the verdicts.

The learner's code shares this process, so the facts are guarded (docs/engine.md, "Trust"): the learner's code
runs on a thread of its own whose frames lead to nothing of the worker's; the main thread, which computes every
fact, refuses frame introspection while it runs (an audit hook), as well as gc walks, ctypes and /proc/*/mem in
every thread; this module and its private protocol copy are out of sys.modules and run on a private copy of
the builtins and on C functions captured before the submission existed; and every reply is signed with a key
the judge gave this child, so bytes the learner writes on the channel do not pass for the worker's.
"""

from __future__ import annotations

import builtins as _real_builtins

# Every function defined below looks its builtins up here, not in the builtins module the learner can rebind.
__builtins__ = dict(_real_builtins.__dict__)  # type: ignore[assignment]  # noqa: A001

import _thread  # noqa: E402
import collections  # noqa: E402
import ctypes  # noqa: E402
import faulthandler  # noqa: E402
import gc  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import posix  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from typing import Any  # noqa: E402

WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 4 and sys.argv[1] == "template":  # the virtualenv's site-packages, at their sandbox paths
    import site

    for _site_dir in sys.argv[4:]:
        site.addsitedir(_site_dir)

import torch  # noqa: E402


def _load_private(name: str) -> types.ModuleType:
    """A sibling module with this module's private builtins (registered under a private name while it loads:
    dataclasses look their module up in sys.modules)."""
    spec = importlib.util.spec_from_file_location(f"_paperlab_{name}", os.path.join(WORKER_DIR, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__["__builtins__"] = __builtins__
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


protocol = _load_private("protocol")
seccomp = _load_private("seccomp")

# Captured before any learner code exists: C functions and descriptors that rebinding cannot reach.
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_list, _tuple, _int, _float, _bool, _str, _none, _repr = list, tuple, int, float, bool, str, type(None), repr
_PLAIN_ITEMS = 1_000_000  # the longest list of plain values whose items are compared after a call
_storage_ptr = protocol._storage_data_ptr
_storage_nbytes = protocol._storage_nbytes
_t_untyped_storage = protocol._t_untyped_storage
_t_requires_grad = protocol._t_requires_grad
_t_numel = protocol._t_numel
_t_shape = protocol._t_shape
_t_dtype = protocol._t_dtype
_t_stride = protocol._t_stride
_t_storage_offset = protocol._t_storage_offset
_t_version = torch._C.TensorBase.__dict__["_version"].__get__
_t_is_leaf = torch._C.TensorBase.__dict__["is_leaf"].__get__
_t_grad_fn = torch._C.TensorBase.__dict__["grad_fn"].__get__
_t_view_as = torch._C.TensorBase.__dict__["view_as"]
_grad_enabled = torch._C.is_grad_enabled
_set_grad_enabled = torch._C._set_grad_enabled
_GradientEdge = torch.autograd.graph.GradientEdge
_t_backward_hooks = torch._C.TensorBase.__dict__["_backward_hooks"].__get__
_t_post_accumulate_hooks = torch._C.TensorBase.__dict__["_post_accumulate_grad_hooks"].__get__
_no_torch_dispatch = torch._C._DisableTorchDispatch
_dispatch_dump = torch._C._dispatch_dump
_dispatch_dump_table = torch._C._dispatch_dump_table
_function_modes = torch._C._len_torch_function_stack
_dispatch_modes = torch._C._len_torch_dispatch_stack
_infra_mode = torch._C._get_dispatch_mode
_INFRA_MODES = tuple(torch._C._TorchDispatchModeKey.__members__.values())
_tls_included = torch._C._dispatch_tls_local_include_set
_tls_excluded = torch._C._dispatch_tls_local_exclude_set
_autograd_fallback_mode = torch._C._get_autograd_fallback_mode

# The operators the worker's own code runs on its thread (decoding arguments, comparing, encoding results,
# default cotangents), directly or through the kernels of the ones it calls. A kernel the learner registers for
# any of them would run learner code inside the worker's operations and could hand the function a private copy
# of an argument, or choose the cotangent a gradient check compares. `_dispatch_dump` lists every kernel of an
# operator, an overridden one as "(inactive)" and a Python one with no signature, so no registration leaves it
# as it was, whatever file name it claims.
WORKER_OPERATORS = tuple("aten::" + name for name in (
    "as_strided", "view", "_unsafe_view", "_reshape_alias", "alias", "reshape", "view_as", "detach", "set_",
    "contiguous", "clone", "copy_", "empty", "empty_strided", "requires_grad_", "ones", "zeros", "randn",
    "normal_", "fill_", "zero_", "_to_copy", "to",
))
# An operator of our own with no kernel: its dispatch table is the table of backend fallbacks (one registered
# for a key with none before shows there; an existing one cannot be replaced, the dispatcher refuses that).
REFUSED_NAMESPACES = ("aten", "_", "prims")  # "_": backend fallbacks, for every operator at once
PROBE_OPERATOR = "paperlab_worker::probe"
_PROBE_LIBRARY = torch.library.Library("paperlab_worker", "FRAGMENT")
if PROBE_OPERATOR not in torch._C._dispatch_get_all_op_names():  # this module may be imported twice (tests)
    _PROBE_LIBRARY.define("probe(Tensor x) -> Tensor")
_no_torch_function = protocol._no_torch_function
_run_backward = torch.autograd.variable.Variable._execution_engine.run_backward  # type: ignore[attr-defined]
_ones = torch.ones
_randn = torch.randn
_zeros = torch.zeros
_Generator = torch.Generator
_generator_seed = torch.Generator.manual_seed
_send_frame = protocol.send_frame
_recv_frame = protocol.recv_frame
_recv_into = protocol._recv_into
_perf_counter = time.perf_counter
_monotonic = time.monotonic
_pread = posix.pread
_get_native_id = _thread.get_native_id
_get_ident = _thread.get_ident
_allocate_lock = _thread.allocate_lock
_start_thread = _thread.start_new_thread
_exc_traceback = BaseException.__dict__["__traceback__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_fspath = posix.fspath
_TracebackType = types.TracebackType
_lstat = posix.lstat
_readlink = posix.readlink
_S_IFLNK = 0o120000
_S_IFMT = 0o170000

SUBMISSION_FILENAME = "submission.py"
# The deepest recursion a submission may ask for. Python frames live on the heap, so sys.setrecursionlimit(10**7)
# lets a runaway recursion grow until the memory limit, and unwinding millions of frames then holds the
# interpreter for seconds: the call outlived its limit by 10-15 s (bench row "deep recursion"). At 20,000 frames
# each runaway call ends in RecursionError within tens of milliseconds (a check makes several calls, and every
# one recurses again), far deeper than any exercise needs (Python's default is 1,000).
MAX_RECURSION_LIMIT = 20_000
PR_SET_DUMPABLE = 4


def _set_undumpable() -> None:
    """Siblings (same uid inside the sandbox) cannot ptrace us or read our /proc/<pid>/mem."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _warm_up() -> None:
    """Run once in the template so each child starts with torch's lazy imports and kernels already loaded."""
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    _exercise_torch()


def _exercise_torch() -> None:
    """The operations a grading uses: loading their code and kernels, or (in a fresh child) faulting in its
    copy-on-write pages."""
    import math  # noqa: F401

    import torch.nn.functional as F

    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(5, 3)
    for dtype in (torch.float32, torch.float64):
        q = F.normalize(x.to(dtype), dim=1)
        logits = torch.cat([(q * q).sum(1, keepdim=True), q @ y.to(dtype).T], dim=1) / 0.1
        loss = torch.logsumexp(logits, dim=1).mean() + F.cross_entropy(logits, torch.zeros(4, dtype=torch.long))
        loss = loss + torch.einsum("nc,kc->nk", q, y.to(dtype)).sum() + torch.log_softmax(logits, 1).sum()
        loss.backward()
    parameter = torch.nn.Parameter(torch.randn(3, 3))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    (parameter.sum() ** 2).backward()
    optimizer.step()
    torch.lerp(y, y.roll(1, 0), 0.5).index_copy(0, torch.tensor([0]), y[:1]).to(torch.float16).to(torch.bfloat16)
    torch.linalg.vector_norm(y, dim=1).clamp_min(1e-12)
    gc.collect()


# ----------------------------------------------------------------------------------------------- template


def template(control_fd: int, *, sandboxed: bool) -> None:
    """Control messages are single JSON datagrams on a SOCK_SEQPACKET socket; a fork request carries the
    job's stream socket as SCM_RIGHTS.

    Inside the sandbox this process is pid 1 (bwrap --as-pid-1): every orphan of a child's tree becomes ours to
    reap, and the kernel drops any signal from inside the sandbox that we have no handler for."""
    _PRISTINE_LIMITS.update(_current_limits())  # before anything else runs: what every child starts from
    if sandboxed:
        _remember_modes()
    if sandboxed:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Python's KeyboardInterrupt handler would let SIGINT in
    control = socket.socket(fileno=control_fd)
    _warm_up()
    gc.freeze()  # children's collections then leave the template's objects (and their shared pages) alone
    _set_undumpable()
    if torch.get_num_threads() != 1 or threading.active_count() != 1:
        raise RuntimeError("the template must stay single-threaded: forking a threaded process deadlocks")
    _send_control(control, {"op": "ready"})
    while True:
        data, fds, _, _ = socket.recv_fds(control, 65536, 1)
        if not data:
            return
        request = json.loads(data)  # grader.messages.ForkRequest
        if type(request) is not dict or request["op"] != "fork" or len(fds) != 1:
            return
        _reap_orphans()
        if _current_limits() != _PRISTINE_LIMITS:
            os._exit(4)  # a template whose limits were changed must not serve again; the pool replaces it
        if sandboxed:
            _wipe_tmp()  # the sandbox's private /tmp; outside a sandbox there is nothing of ours to wipe
        pid = os.fork()
        if pid == 0:
            try:
                control.close()
                _child(fds[0], warm=request["ahead"] is True)
            finally:
                os._exit(0)
        os.close(fds[0])
        _send_control(control, {"op": "forked", "pid": pid})
        status, usage = _wait_for(pid)
        _send_control(
            control,
            {
                "op": "exited",
                "exit_code": os.waitstatus_to_exitcode(status),
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "max_rss_kb": usage.ru_maxrss,
            },
        )


def _wait_for(child: int) -> tuple[int, Any]:
    """(status, rusage) of `child`, reaping on the way the orphans re-parented to us: an unreaped zombie keeps
    its pid charged to the job's cgroup, and, once that is gone, to the template's whole tree."""
    while True:
        pid, status, usage = os.wait4(-1, 0)
        if pid == child:
            return status, usage


def _reap_orphans() -> None:
    """Zombies of a finished child's tree that died after it (the host kills the whole job cgroup at once)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _send_control(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())


WIPED = ("/tmp", "/dev/shm")
_WIPED_MODES: dict[str, int] = {}  # each wiped directory's own mode as the sandbox made it


def _wipe_tmp() -> None:
    """Nothing a previous child wrote may reach the next one (the host killed that child's whole tree first).
    The seccomp filter refuses SysV IPC, so none can exist; a template that finds any all the same retires.

    What the child left cannot make this fail: a directory with mode 000 is given its mode back before it is
    listed, a chain deeper than any recursion limit is walked with a loop, never with recursion, and /tmp
    made unreadable gets its own mode back first. A template that still finds something it cannot remove
    retires (os._exit), rather than hand it to the next learner."""
    for directory in WIPED:
        if not _empty_directory(directory):
            os._exit(3)  # a template that cannot clean up must not serve again; the pool replaces it
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                if len(table.read().splitlines()) > 1:  # a header line, then one line per object
                    os._exit(3)
        except FileNotFoundError:
            pass  # a kernel without System V IPC


def _remember_modes() -> None:
    for directory in WIPED:
        try:
            _WIPED_MODES[directory] = os.stat(directory).st_mode & 0o7777
        except OSError:
            pass


_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _empty_directory(directory: str) -> bool:
    """Remove everything below `directory`; whether it is empty now. Never raises.

    Depth first with a loop and two descriptors at most: the names on the way down are kept in a list, and the
    way up is "..", so neither the recursion limit, nor PATH_MAX, nor the open-files limit bounds the depth.
    Symbolic links are removed, never followed."""
    if directory in _WIPED_MODES:
        try:
            os.chmod(directory, _WIPED_MODES[directory])
        except OSError:
            pass
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    names: list[str] = []  # from `directory` down to where fd is
    try:
        while True:
            subdirectory, seen = None, 0
            with os.scandir(fd) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        subdirectory = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if subdirectory is not None:
                os.chmod(subdirectory, 0o700, dir_fd=fd)  # a directory (checked above): no link to follow
                inner = os.open(subdirectory, _DIRECTORY_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
                names.append(subdirectory)
            elif seen:
                continue  # entries were removed while listing: list again until a listing finds none
            elif not names:
                return True
            else:
                outer = os.open("..", _DIRECTORY_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = outer
                os.rmdir(names.pop(), dir_fd=fd)
    except Exception:  # noqa: BLE001 - whatever it is, the verdict is the same: not clean
        return False
    finally:
        os.close(fd)


# -------------------------------------------------------------------------------------------------- child

def _read_sibling(name: str) -> str:
    with open(os.path.join(WORKER_DIR, name), encoding="utf-8") as source:
        return source.read()


# What the learner's thread runs and may reach (grader/learner_side.py), compiled once in the template, before any
# submission exists, and run in a namespace of its own in each child: from its frames and globals the learner's
# code reaches nothing of the worker's.
_LEARNER_SIDE = compile(_read_sibling("learner_side.py"), "<paperlab learner thread>", "exec", dont_inherit=True)


def _learner_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__builtins__": _real_builtins, "__name__": "paperlab_learner"}
    exec(_LEARNER_SIDE, namespace)
    return namespace


class Interfered(Exception):
    """The learner's code tampered with the thread that runs it (released it early, emptied its results)."""


class CallOverran(Exception):
    """A call of the learner's code did not return within the call limit; its thread is still running it."""


class LearnerThread:
    """Runs the learner's code, one call at a time, on a thread whose stack holds nothing of the worker's.

    `call_timeout_s`: how long `run` lets one call take (-1: for ever, while the submission loads, where the
    judge's deadline decides), counted as the call's wall time less the time the learner's thread waited for a
    CPU that other processes held (the kernel's schedstat), so a busy machine changes no verdict; a call whose
    wall time reaches `wall_ceiling_factor` times the limit ends anyway. A request of several calls then ends at
    the first call that breaks the limit, not when the judge's deadline for all of them runs out."""

    STACK_BYTES = 64 * 1024 * 1024  # recursion to MAX_RECURSION_LIMIT, through C calls too, ends in RecursionError

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._jobs: list[Any] = []
        self._results: list[Any] = []
        self.graveyard: list[Any] = []
        self._wake = _allocate_lock()
        self._done = _allocate_lock()
        self._wake.acquire()
        self._done.acquire()
        self.call_timeout_s = -1.0
        self.wall_ceiling_factor = 1.0
        previous = _thread.stack_size(self.STACK_BYTES)
        try:
            _start_thread(namespace["serve"], (self._jobs, self._results, self.graveyard, self._wake, self._done))
        finally:
            _thread.stack_size(previous)
        self._schedstat = -1
        ok, tid = self.run(_get_native_id, (), {})
        if ok:
            try:  # opened now, before the submission loads: the guard would refuse nothing here, but no path lookup
                self._schedstat = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
            except OSError:
                pass  # no schedstat in this kernel: calls are timed by the wall clock alone

    def queued_s(self) -> float:
        """Seconds the learner's thread has spent runnable but waiting for a CPU (0 where the kernel does not
        say). A submission that forges it (its own file on this descriptor) still meets the wall-clock ceiling."""
        if self._schedstat < 0:
            return 0.0
        try:
            fields = _pread(self._schedstat, 128, 0).split()
            return int(fields[1]) / 1e9 if len(fields) >= 2 else 0.0
        except (OSError, ValueError):
            return 0.0

    def run(self, function: Any, args: Any, kwargs: Any) -> tuple[bool, Any]:
        """(True, value) or (False, exception). Everything it returns stays referenced by the graveyard, so it
        is freed on the learner's thread, never on this one."""
        self._jobs.append((function, args, kwargs))
        self._wake.release()
        limit = self.call_timeout_s
        if limit < 0:
            self._done.acquire()
        else:
            started, queued = _monotonic(), self.queued_s()
            ceiling = limit * self.wall_ceiling_factor
            while True:
                elapsed = _monotonic() - started
                used = elapsed - (self.queued_s() - queued)
                if used >= limit or elapsed >= ceiling:
                    raise CallOverran
                if self._done.acquire(True, max(0.001, min(limit - used, ceiling - elapsed))):
                    break
        results = self._results
        if type(results) is not list or len(results) != 1:
            raise Interfered("your code interfered with the thread that runs it")
        entry = results.pop()
        self.graveyard.append(entry)
        if type(entry) is not tuple or len(entry) != 2 or type(entry[0]) is not bool:
            raise Interfered("your code interfered with the thread that runs it")
        return entry


# ------------------------------------------------------------------------------------------------- guard


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
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_code", "gi_code", "f_back"})
PROC_REFUSED = frozenset({"mem", "maps", "smaps", "pagemap", "map_files", "mountinfo", "mounts", "mountstats",
                          "environ", "syscall", "stack"})


class Guard:
    """The audit hook the child installs before the submission loads. Once added, no code can remove it."""

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


def _seal(main_thread: int) -> Guard:
    """Hide the worker from the submission and install the guard. Nothing of the worker stays in sys.modules
    (`import __main__` gives an empty module), and the private modules' names are gone too."""
    ours = {id(module) for module in (sys.modules.get("__main__"), protocol, seccomp) if module is not None}
    for name, module in list(sys.modules.items()):
        if id(module) in ours or name in ("protocol", "seccomp", "worker"):  # __mp_main__ aliases __main__ too
            del sys.modules[name]
    sys.modules["__main__"] = types.ModuleType("__main__")
    sys.path[:] = [entry for entry in sys.path if entry != WORKER_DIR]
    guard = Guard(main_thread)
    sys.addaudithook(guard)
    return guard


# ----------------------------------------------------------------------------------------------- serving


_PRISTINE_LIMITS: dict[int, tuple[int, int]] = {}  # every resource limit of the template as it started


def _current_limits() -> dict[int, tuple[int, int]]:
    return {getattr(resource, name): resource.getrlimit(getattr(resource, name))
            for name in dir(resource) if name.startswith("RLIMIT_")}


def child_rlimits(limits: dict[str, Any], *, vm_data_kb: int, processes_capped: bool) -> dict[int, int]:
    """The resource limits a child sets, by resource. RLIMIT_NPROC counts every process of the user, the
    template's and the other children's included, and is ignored for root: where the child's own cgroup caps
    its processes (pids.max) the child leaves it as the template had it, so that a fork or thread bomb runs into
    pids.max and its verdict names the process limit. Without a cgroup, RLIMIT_NPROC is the only cap there is."""
    wanted = {
        resource.RLIMIT_DATA: vm_data_kb * 1024 + int(limits["memory_mb"]) * 1024 * 1024,
        resource.RLIMIT_CPU: int(limits["cpu_time_s"]),
        resource.RLIMIT_FSIZE: int(limits["file_size_mb"]) * 1024 * 1024,
        resource.RLIMIT_NOFILE: int(limits["open_files"]),
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_MSGQUEUE: 0,  # no POSIX message queue bytes (seccomp refuses mq_open too)
    }
    if not processes_capped:
        wanted[resource.RLIMIT_NPROC] = int(limits["max_processes"])  # effective only when not mapped to root
    return wanted


def _apply_limits(limits: dict[str, Any], *, processes_capped: bool) -> None:
    """Set every resource limit of this child from the template's pristine limits, never from what it inherited
    (a submission once lowered the template's limits and every later child failed while loading)."""
    vm_data_kb = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                vm_data_kb = int(line.split()[1])
    wanted = child_rlimits(limits, vm_data_kb=vm_data_kb, processes_capped=processes_capped)
    for which, (soft, hard) in (_PRISTINE_LIMITS or _current_limits()).items():
        if which in wanted:
            # CPU: SIGXCPU at the soft limit (reported as the limit), SIGKILL one second later
            ceiling = wanted[which] + 1 if which == resource.RLIMIT_CPU else wanted[which]
            soft, hard = _at_most(wanted[which], hard), _at_most(ceiling, hard)
        resource.setrlimit(which, (soft, hard))


def _at_most(value: int, hard: int) -> int:
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


class Output:
    """What the learner's code printed: the writer (learner-side) appends to `parts`; this side reads."""

    def __init__(self, namespace: dict[str, Any], limit: int) -> None:
        self.limit = limit
        self.namespace = namespace
        self.parts: list[Any] = []
        self.dropped = [0]
        self.writer = namespace["BoundedWriter"](limit, self.parts, self.dropped)

    def take(self) -> str:
        pieces = [part for part in self.parts if type(part) is str]
        text = "".join(pieces)[: self.limit]
        dropped = self.dropped[0] if type(self.dropped[0]) is int else 0
        self.parts.clear()
        self.dropped[0] = 0
        if dropped:
            text += f"\n[... {dropped} more characters not shown: output limit {self.limit} characters]"
        return text


class Served:
    """A loaded submission and what serving it needs; `runner` calls the learner's functions."""

    def __init__(self, module: types.ModuleType, output: Output, runner: Any, graveyard: list[Any],
                 guard: Guard | None, arena_copies: bool = False, queued: Any = None) -> None:
        self.module = module
        self.output = output
        self.runner = runner
        self.graveyard = graveyard
        self.guard = guard
        self.arena_copies = arena_copies  # the in-process benchmark hands over private buffers
        self.stand_in = output.namespace["StandIn"]
        # Seconds the learner's thread has waited for a CPU (LearnerThread.queued_s): a call's duration leaves
        # them out, as its time limit does, so the judge's budgets spend the same on a busy machine.
        self.queued = queued if queued is not None else _no_queue

    def calls(self, request: dict[str, Any], blobs: list[Any], max_message: int) -> tuple[dict[str, Any], list[bytes]]:
        """One `calls` request: every call in order, its reply, and the reply's blobs (grader.messages names
        every field; each reply carries all of them, so the judge can refuse one that lacks any)."""
        calls = request["calls"]
        if type(calls) is not list:
            return {"op": "results", "results": []}, []
        reply_blobs: list[bytes] = []
        replies = [self.call(call, blobs, reply_blobs) for call in calls]
        size = sum(len(blob) for blob in reply_blobs)
        if size > max_message:
            return {"op": "too_large", "size": size}, []
        return {"op": "results", "results": replies}, reply_blobs

    def call(self, call: dict[str, Any], blobs: list[Any], reply_blobs: list[bytes]) -> dict[str, Any]:
        decoder = protocol.Decoder(blobs, copy=self.arena_copies, results=False, opaque=self.stand_in)
        with _no_torch_function(), _no_torch_dispatch():  # no mode, however it got on this thread, sees this
            arguments = decoder.decode(call["arguments"])
        args, kwargs = arguments
        self.graveyard.append(arguments)
        function = self.module.__dict__.get(call["function"])
        reply: dict[str, Any] = {"value": None, "raised": None, "missing": False, "grads": {}, "backward_error": None,
                                 "grad_output": None, "mutated": [], "aliased": [], "output": "", "duration_ms": 0.0}
        if not callable(function):
            reply["missing"] = True
            return reply
        named = [(str(i), v) for i, v in enumerate(args)] + list(kwargs.items())
        tensors = [(key, value) for key, value in named if type(value) is _Tensor or type(value) is _Parameter]
        plain = [(key, value, _plain(value)) for key, value in named if type(value) is _list or type(value) is _tuple]
        with _no_torch_function(), _no_torch_dispatch():
            layouts = [_layout(t) for _, t in tensors]
            # Where each argument's gradient accumulates, taken now: a call that clears requires_grad on the
            # caller's tensors after building its graph still gets the gradient that reaches them measured.
            edges = {key: _grad_accumulator(t) for key, t in tensors if _t_requires_grad(t) and _t_is_leaf(t)}
        started, queued = _perf_counter(), self.queued()
        try:
            ok, value = self.runner(function, args, kwargs)
        except Interfered as exc:
            ok, value = False, exc
        reply["duration_ms"] = max(0.0, _perf_counter() - started - (self.queued() - queued)) * 1000
        if not ok:
            reply["raised"] = self.exception_summary(value)
            reply["output"] = self.output.take()
            return reply
        encoder = protocol.Encoder(preserve_views=False)
        encoder.blobs = reply_blobs
        with _no_torch_function(), _no_torch_dispatch():
            # Bytes written to an argument the judge sees in its own mapping; a change of shape, strides,
            # storage or version counter (t_(), resize_(), set_(), a same-value write) only this process sees.
            reply["mutated"] = [key for (key, t), layout in zip(tensors, layouts, strict=True)
                                if not _same_layout(layout, _layout(t))]
            # A list of plain values (token ids, pairs) changed in place: appended to, sorted, an item replaced.
            reply["mutated"] += [key for key, value, before in plain if before is not None and _plain(value) != before]
            reply["aliased"] = _aliased(value, tensors)
            try:
                reply["value"] = encoder.encode(value)
            except protocol.ProtocolError as exc:
                reply["value"] = {"opaque": f"unencodable result ({exc})"}
            if call["grads"]:
                self.gradients(reply, value, call, dict(tensors), edges, decoder, encoder)
        reply["output"] = self.output.take()
        return reply

    def gradients(self, reply: dict[str, Any], value: Any, call: dict[str, Any], tensors: dict[str, Any],
                  edges: dict[str, Any], decoder: Any, encoder: Any) -> None:
        """Vector-Jacobian products of the result with respect to the arguments asked for. A cotangent comes
        with the call, or is ones for a one-element result and seeded random values otherwise (sent back, so
        the check can use the same one). Which arguments take part is decided by the snapshot from before the
        call (`edges`): an argument that required grad then is differentiated through its accumulator, even if
        the call cleared its requires_grad since."""
        wanted = [key for key in call["grads"] if type(key) is str]
        grads: dict[str, Any] = {key: None for key in wanted}
        reply["grads"] = grads
        results = _tensors_in(value)
        given = call["grad_output"]
        try:
            if given is not None:
                cotangent = decoder.decode(given)
                cotangents = list(cotangent) if type(cotangent) in (tuple, list) else [cotangent]
            else:  # one per tensor of the result, in order (a check's central differences pair them up)
                cotangents = [_default_cotangent(t, index) for index, t in enumerate(results)]
                if results:
                    reply["grad_output"] = encoder.encode(tuple(cotangents) if type(value) in (tuple, list)
                                                          else cotangents[0])
            if not any(_t_requires_grad(t) for t in results):
                reply["backward_error"] = ("the result does not require grad, so no gradient can flow back from it "
                                           "(was it detached, or rebuilt from Python numbers?)")
                return
            pairs = [(t, c) for t, c in zip(results, cotangents, strict=False) if _t_requires_grad(t)]
            inputs = [(key, tensors[key] if _t_requires_grad(tensors[key]) else _GradientEdge(edges[key], 0))
                      for key in wanted if key in edges]
            if not inputs:
                return
            found = _run_backward(tuple(t for t, _ in pairs), tuple(c for _, c in pairs), False, False,
                                  tuple(t for _, t in inputs), True, False)
        except BaseException as exc:  # noqa: B902 - the learner's backward may raise anything
            reply["backward_error"] = self.exception_summary(exc)["message"]
            self.graveyard.append(exc)
            return
        self.graveyard.append(found)
        for (key, _), grad in zip(inputs, found, strict=True):
            grads[key] = None if grad is None else encoder.encode(grad)

    def exception_summary(self, exc: BaseException) -> dict[str, Any]:
        # Walk the traceback by hand, keeping the last few frames of the submission: traceback.extract_tb looks
        # up a source line for every frame, which after a million-deep recursion takes longer than any limit.
        last: collections.deque[tuple[int, str]] = collections.deque(maxlen=5)
        guard = self.guard
        if guard is not None:
            guard.trusted = True
        try:
            tb = _exc_traceback(exc)
            while type(tb) is _TracebackType:
                code = tb.tb_frame.f_code
                if code.co_filename == SUBMISSION_FILENAME:
                    last.append((tb.tb_lineno or 0, code.co_name))
                tb = tb.tb_next
        finally:
            if guard is not None:
                guard.trusted = False
        frames = [[line, name, _source_line(line)] for line, name in last]
        kind = type(exc)
        if kind is SyntaxError or SyntaxError in _type_mro(kind):
            if exc.filename == SUBMISSION_FILENAME:  # type: ignore[attr-defined]
                frames.append([exc.lineno or 0, "<module>", str(exc.text or "").strip()[:200]])  # type: ignore[attr-defined]
        try:
            message = exc.msg if SyntaxError in _type_mro(kind) and exc.msg else str(exc)  # type: ignore[attr-defined]
            if type(message) is not str:
                message = "<the exception's message could not be read>"
        except BaseException:  # noqa: B902 - a hostile __str__
            message = "<the exception's message could not be read>"
        mro = [str(_type_name(k)) for k in _type_mro(kind)][:16]
        return {"type": str(_type_name(kind))[:100], "mro": mro, "message": message[:2000], "traceback": frames[-5:]}


def _no_queue() -> float:
    return 0.0


def _layout(t: Any) -> tuple[Any, ...]:
    """Every fact of an argument a call could change without writing its bytes: shape, strides, storage, version
    counter, its class (`__class__` can be assigned a subclass with __torch_function__), its autograd facts
    (requires_grad, leafness, grad_fn) and whether any hook was registered on it. grad_fn by identity, the object
    kept alive in the tuple so that a new one cannot reuse its id; compared with `is`, never with its own __eq__."""
    storage = _t_untyped_storage(t)
    grad_fn = _t_grad_fn(t)
    return (tuple(_t_shape(t)), tuple(_t_stride(t)), _t_storage_offset(t), _storage_ptr(storage), _t_version(t),
            id(type(t)), bool(_t_requires_grad(t)), bool(_t_is_leaf(t)), _t_backward_hooks(t) is None,
            _t_post_accumulate_hooks(t) is None, id(grad_fn), grad_fn)


def _plain(value: Any, depth: int = 0) -> Any:
    """A snapshot of a list or tuple of plain Python values (ints, floats, bools, strs, None, nested lists and
    tuples of them), made of those exact types only, so comparing two never runs the learner's code; None when it
    holds anything else (a tensor's own facts are compared by _layout)."""
    kind = type(value)
    if kind is _list or kind is _tuple:
        if depth > 4 or len(value) > _PLAIN_ITEMS:
            return None  # past what a plain argument holds: not compared (one grown this long has changed)
        items = []
        for item in value:
            snapshot = _plain(item, depth + 1)
            if snapshot is None:
                return None
            items.append(snapshot)
        return (kind is _list, _tuple(items))
    if kind is _int or kind is _bool or kind is _str or kind is _none:
        return (kind is _bool, kind is _str, value)
    if kind is _float:
        return ("float", _repr(value))  # nan equals itself here
    return None


def _same_layout(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    return before[:-1] == after[:-1] and before[-1] is after[-1]


def _grad_accumulator(t: Any) -> Any:
    """The AccumulateGrad node of a leaf that requires grad: the node a graph built from it feeds. Held by the
    caller, it stays the tensor's accumulator for as long as the call's graph lives."""
    enabled = _grad_enabled()
    _set_grad_enabled(True)
    try:
        return _t_grad_fn(_t_view_as(t, t)).next_functions[0][0]
    finally:
        _set_grad_enabled(enabled)


def _torch_state(kernels: Any = None) -> tuple[Any, ...]:
    """What decides which code torch runs for the worker's own operations on this thread: the kernels of every
    operator it uses, the backend fallbacks, the mode stacks, the thread's dispatch key sets and autograd's
    fallback mode. Taken before the submission loads and compared after loading and after every request.

    `kernels`: use these dumps instead of reading them again (0.7 ms on a busy machine; the rest costs 0.05 ms).
    A request without gradients needs no fresh dump: the arguments it decodes are checked against the arena
    one by one, and what its encoder reports is the function's own answer; the operators whose kernels could
    forge a fact (the default cotangent's, the gradient accumulator's) run only in a request with gradients,
    and that one compares every dump again, against the state from before the load."""
    return (
        tuple(_dispatch_dump(name) for name in WORKER_OPERATORS) if kernels is None else kernels,
        _dispatch_dump_table(PROBE_OPERATOR),
        _function_modes(),
        _dispatch_modes(),
        tuple(_infra_mode(key) is None for key in _INFRA_MODES),
        str(_tls_included()),
        str(_tls_excluded()),
        _autograd_fallback_mode(),
        _grad_enabled(),
    )


def _torch_changes(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    """What differs between two `_torch_state`s, in words ("" when nothing does)."""
    found = [f"a kernel registered for {name}" for name, old, new
             in zip(WORKER_OPERATORS, before[0], after[0], strict=True) if old != new]
    names = ("", "a backend fallback registered", "a torch function mode left on", "a torch dispatch mode left on",
             "a dispatch mode left on", "the dispatch keys of the grader's thread changed",
             "the dispatch keys of the grader's thread changed", "autograd's fallback mode changed",
             "gradient mode switched off on the grader's thread")
    for index in range(1, len(names)):
        if before[index] != after[index] and names[index] not in found:
            found.append(names[index])
    return ", ".join(found)


def _default_cotangent(t: Any, index: int) -> Any:
    dtype = _t_dtype(t)
    if not (dtype.is_floating_point or dtype.is_complex):  # indices, masks: no gradient flows from them
        return _zeros(_t_shape(t), dtype=dtype)
    if _t_numel(t) == 1:
        return _ones(_t_shape(t), dtype=_t_dtype(t))
    generator = _generator_seed(_Generator(), 1234 + index)
    return _randn(_t_shape(t), generator=generator, dtype=_t_dtype(t))


def _aliased(value: Any, tensors: list[tuple[str, Any]]) -> list[str]:
    """Argument keys whose storage overlaps the storage of any returned tensor."""
    ranges = []
    for _, t in tensors:
        storage = _t_untyped_storage(t)
        ranges.append((_storage_ptr(storage), _storage_ptr(storage) + _storage_nbytes(storage)))
    found: set[str] = set()
    for out in _tensors_in(value):
        storage = _t_untyped_storage(out)
        start = _storage_ptr(storage)
        end = start + _storage_nbytes(storage)
        for (key, arg), (a_start, a_end) in zip(tensors, ranges, strict=True):
            if a_start == 0 or start == 0:  # no memory at all (an empty or meta tensor): nothing to share
                if out is arg:
                    found.add(key)
                continue
            if out is arg or (start < a_end and a_start < end) or start == a_start:
                found.add(key)
    return sorted(found)


def _tensors_in(value: Any, depth: int = 0) -> list[Any]:
    if depth > 8:
        return []
    if type(value) is _Tensor or type(value) is _Parameter:
        return [value]
    if type(value) is tuple or type(value) is list:
        return [t for item in value for t in _tensors_in(item, depth + 1)]
    return []


_SOURCE: list[str] = []  # the submission's lines, for tracebacks (it is compiled from a string, not a file)


def _source_line(number: int) -> str:
    return _SOURCE[number - 1].strip()[:200] if 0 < number <= len(_SOURCE) else ""


def _load_modules(sources: Any, runner: Any) -> tuple[bool, Any]:
    """The problem's own modules (helpers.py), importable by the submission; they run on the learner's thread,
    like its code: the learner reads them in the page."""
    for name, source in (sources.items() if type(sources) is dict else ()):
        module = types.ModuleType(str(name))
        module.__file__ = f"{name}.py"
        ok, raised = runner(exec, (compile(str(source), f"{name}.py", "exec", dont_inherit=True), module.__dict__), {})
        if not ok:
            return False, raised
        sys.modules[str(name)] = module
    return True, None


def _ban(names: Any, namespace: dict[str, Any]) -> None:
    """Replace each dotted library name (module path, then attributes) by a function that refuses to run."""
    for name in names if type(names) is list else ():
        parts = str(name).split(".")
        for split in range(len(parts) - 1, 0, -1):
            try:
                owner: Any = importlib.import_module(".".join(parts[:split]))
            except ImportError:
                continue
            try:
                for attribute in parts[split:-1]:
                    owner = getattr(owner, attribute)
                setattr(owner, parts[-1], namespace["banned"](str(name)))
            except (AttributeError, TypeError):
                pass
            break


def _load_submission(code: str, runner: Any) -> tuple[types.ModuleType, bool, Any]:
    """(module, ok, exception or None): the submission's module code runs on the learner's thread too."""
    module = types.ModuleType("submission")
    module.__file__ = SUBMISSION_FILENAME
    _SOURCE[:] = code.splitlines()
    try:
        compiled = compile(code, SUBMISSION_FILENAME, "exec", dont_inherit=True)
    except BaseException as exc:  # noqa: B902 - a SyntaxError, a MemoryError on a huge file
        return module, False, exc
    ok, raised = runner(exec, (compiled, module.__dict__), {})
    return module, ok, None if ok else raised


def _child(job_fd: int, *, warm: bool) -> None:
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    job = socket.socket(fileno=job_fd)
    # Children are forked ahead of demand. Touch what a grading touches while we wait: the copy-on-write faults
    # of a fresh fork (every object whose reference count changes gets its page copied) then happen here, off
    # the critical path of the submission, instead of during its first calls.
    if warm:
        _exercise_calls()  # light on purpose: under load this runs beside other gradings and costs throughput
    # "load": sent after the host has moved us into our cgroup, with the pipe our stacks go to when the judge
    # asks (SIGUSR1, before it kills a call that ran out of time: the verdict names the line that was running)
    header, _, fds = _recv_frame(job, max_blob_bytes=0, with_fds=True)
    if fds:
        faulthandler.register(signal.SIGUSR1, file=fds[0], all_threads=True, chain=False)
    key = bytes.fromhex(str(header["key"]))  # grader.messages.LoadRequest: every field is always sent
    limits = header["limits"]
    seed = int(header["seed"])
    torch.manual_seed(seed)
    random.seed(seed)
    parent = os.getppid()  # the template
    seccomp.install([parent, os.getpgid(parent), 1])
    namespace = _learner_namespace()
    # after seccomp (a filter binds the threads made after it), before the limits, so its stack counts in the
    # baseline and not against the learner's memory
    learner = LearnerThread(namespace)
    _apply_limits(limits, processes_capped=header["processes_capped"] is True)
    output = Output(namespace, int(limits["output_kb"]) * 1024)
    sys.stdout = sys.stderr = output.writer
    _ban(header["banned_calls"], namespace)
    # A courtesy: the plain route says at once why it is closed. Other routes (a Library object torch keeps for
    # its own registrations) stay open, and the torch state below is what catches them.
    torch._C._dispatch_library = namespace["guarded_library"](torch._C._dispatch_library, REFUSED_NAMESPACES)
    # Integer -> memory, by name (docs/engine.md, "Trust": what stays open, numpy's __array_interface__ first).
    # torch imports ctypes itself, so `torch.ctypes` and `numpy.ctypeslib.ctypes` hand the module over without an
    # import; its audited uses (string_at, from_address, dlopen) the guard refuses, and its unaudited ones are
    # replaced here. Its classes stay reachable through object.__subclasses__() (docs/engine.md, what remains).
    closing = [(torch._C, "_construct_storage_from_data_pointer"), (torch, "_from_blob")]
    for owner, name in closing + [(ctypes, name) for name in CTYPES_CLOSED]:
        setattr(owner, name, namespace["closed"](f"{owner.__name__}.{name}"))
    sys.setrecursionlimit = namespace["capped_recursion_limit"](sys.setrecursionlimit, MAX_RECURSION_LIMIT)
    guard = _seal(_get_ident())
    pristine = _torch_state()
    served = Served(types.ModuleType("submission"), output, learner.run, learner.graveyard, guard,
                    queued=learner.queued_s)
    ok, raised = _load_modules(header["modules"], learner.run)
    module = types.ModuleType("submission")
    if ok:
        module, ok, raised = _load_submission(str(header["code"]), learner.run)
    served.module = module
    changed = _torch_changes(pristine, _torch_state())
    if changed:
        _send_frame(job, {"op": "tampered", "what": changed}, key=key)
        return
    if not ok:
        reply = {"op": "loaded", "ok": False, "functions": [], "raised": served.exception_summary(raised),
                 "output": output.take()}
        _send_frame(job, reply, key=key)
        return
    functions = sorted(name for name, value in list(module.__dict__.items())
                       if type(name) is str and callable(value) and not name.startswith("__"))
    _send_frame(job, {"op": "loaded", "ok": True, "functions": functions, "raised": None, "output": output.take()},
                key=key)
    max_message = int(limits["message_mb"]) * 1024 * 1024
    # This clock decides every call's time limit (it discounts waiting for a CPU); the judge's deadline is a
    # wall-clock ceiling past it, for a child that cannot answer at all.
    learner.call_timeout_s = float(limits["call_timeout_s"])
    learner.wall_ceiling_factor = float(limits["wall_ceiling_factor"])
    while True:
        try:
            request, _, fds = _recv_frame(job, max_blob_bytes=0, with_fds=True)
        except EOFError:
            return
        if request["op"] != "calls" or len(fds) > 1:  # grader.messages.CallsRequest
            return
        arena = request["arena"]
        if fds:
            blobs = protocol.map_arena(fds[0], arena["size"], arena["blobs"])
        else:
            blobs = protocol._blob_table(arena["blobs"], memoryview(bytearray()))
        try:
            reply, reply_blobs = served.calls(request, blobs, max_message)
            with_grads = type(request["calls"]) is list and any(
                type(call) is dict and call.get("grads") for call in request["calls"])
            changed = _torch_changes(pristine, _torch_state(None if with_grads else pristine[0]))
        except protocol.ProtocolError as exc:  # a decoded argument that is not the judge's memory
            changed = str(exc)
        except CallOverran:
            # The learner's thread is still in the call and this child can serve no more: say so (signed), then
            # wait for the judge, which samples our stacks (the line that was running) and kills us.
            _send_frame(job, {"op": "call_timed_out"}, key=key)
            # The learner's thread still runs and may rebind socket.socket's methods: the captured C one only.
            while _recv_into(job, bytearray(1), 1):
                pass
            return
        if changed:  # these replies were computed by a torch the learner changed: none of them is sent
            _send_frame(job, {"op": "tampered", "what": changed}, key=key)
            return
        _send_frame(job, reply, reply_blobs, key=key)


def _exercise_calls() -> None:
    """One round of the call-serving path on a stand-in function (decode, call, backward, encode)."""
    module = types.ModuleType("warm_up")
    module.f = lambda x, y, t: (x * y).sum() / t  # type: ignore[attr-defined]
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    arguments, blobs = protocol.encode(((x, x.detach().T.contiguous().T, 0.5), {}))
    call = {"function": "f", "arguments": arguments, "grads": ["0"], "grad_output": None}
    namespace = _learner_namespace()
    direct = lambda function, args, kwargs: (True, function(*args, **kwargs))  # noqa: E731
    served = Served(module, Output(namespace, 100), direct, [], None, arena_copies=True)
    served.call(call, [bytearray(blob) for blob in blobs], [])


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "template" and sys.argv[3] in ("sandboxed", "unsandboxed"):
        template(int(sys.argv[2]), sandboxed=sys.argv[3] == "sandboxed")
        return
    print("usage: worker.py template FD sandboxed|unsandboxed [SITE_DIR ...]", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
