"""Cgroups that cap a sandbox's process tree: where the grader may make them (cgroup v1 or v2), and the few
operations the pool needs on them (create, fill, cap, kill, remove). Nothing here reads a path the sandbox
could write.

Two rules of cgroup v2 shape where the cgroups go:

- **No internal processes.** A cgroup other than the hierarchy's root that hands controllers to its children
  (`cgroup.subtree_control`) may hold no process itself. So a template lives in a leaf (`template`) beside its
  jobs' leaves, and a grader that runs inside a cgroup of its own first moves itself, and the processes beside
  it, into a leaf (`SUPERVISOR_LEAF`) before it enables controllers there.
- **Delegation.** An unprivileged user may create cgroups only in a subtree it owns, and may move a process
  only between cgroups whose common ancestor's `cgroup.procs` it may write. systemd's `Delegate=yes` and a
  container's private cgroup namespace both hand the grader its own cgroup, not the hierarchy's root; the
  pools then go inside that cgroup.

So under v2 the pools' base is `/sys/fs/cgroup/paperlab` when the grader may write the hierarchy's real root
(root on a host), else the grader's own cgroup (`/proc/self/cgroup`) when it is delegated to it.
"""

from __future__ import annotations

import errno
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from grader.errors import SandboxError

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PREFIX = "paperlab"
CONTROLLERS = ("pids", "memory")
# The leaf a grader moves itself into when its own cgroup is the pools' base (v2, delegated). The name marks
# it as ours: a grader already in such a leaf (a fork of one that moved) uses the leaf's parent as the base.
SUPERVISOR_LEAF = "paperlab-grader"
UNIFIED = "unified"  # the key of a v2 cgroup's single directory in Cgroup.paths


class CgroupError(SandboxError):
    """No cgroup with the pids and memory controllers can be made here; the message says what to change."""


# ------------------------------------------------------------------------------------------------ a cgroup


@dataclass
class Cgroup:
    """One cgroup in each controller we need (pids and memory), v1 or v2. Creating, filling, capping,
    killing and removing it are the only operations."""

    paths: dict[str, Path]  # controller -> directory (UNIFIED for v2)
    version: int

    @property
    def _pids_dir(self) -> Path:
        return self.paths[UNIFIED] if self.version == 2 else self.paths["pids"]

    def add(self, pid: int) -> None:
        for path in self.paths.values():
            (path / "cgroup.procs").write_text(str(pid))

    def limit(self, *, max_pids: int, memory_bytes: int | None) -> None:
        (self._pids_dir / "pids.max").write_text(str(max_pids))
        if memory_bytes is None:
            return
        if self.version == 1:
            (self.paths["memory"] / "memory.limit_in_bytes").write_text(str(memory_bytes))
            return
        unified = self.paths[UNIFIED]
        (unified / "memory.max").write_text(str(memory_bytes))
        swap = unified / "memory.swap.max"
        if swap.exists():  # absent when the kernel has no swap accounting; then nothing can go to swap anyway
            swap.write_text("0")

    def pids(self) -> list[int]:
        """Every process in this cgroup and the cgroups below it."""
        path = self._pids_dir
        found: list[int] = []
        for directory in [path, *(p for p in path.rglob("*") if p.is_dir())] if path.is_dir() else []:
            try:
                found += [int(line) for line in (directory / "cgroup.procs").read_text().split()]
            except FileNotFoundError:
                continue
        return found

    def kill_all(self, *, deadline_s: float = 10.0) -> bool:
        """SIGKILL every process until none is left; True when the cgroup is empty."""
        end = time.monotonic() + deadline_s
        if self.version == 2 and (self.paths[UNIFIED] / "cgroup.kill").exists():
            # One write kills the whole subtree, including processes forked while we would be listing them.
            (self.paths[UNIFIED] / "cgroup.kill").write_text("1")
        while time.monotonic() < end:
            pids = self.pids()
            if not pids:
                return True
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)
        return not self.pids()

    def memory_exceeded(self) -> bool:
        try:
            if self.version == 2:
                events = _key_values((self.paths[UNIFIED] / "memory.events").read_text())
                return any(events.get(key, 0) > 0 for key in ("max", "oom", "oom_kill"))
            return int((self.paths["memory"] / "memory.failcnt").read_text()) > 0
        except (FileNotFoundError, ValueError):
            return False

    def pids_exhausted(self) -> bool:
        try:
            return _key_values((self._pids_dir / "pids.events").read_text()).get("max", 0) > 0
        except (FileNotFoundError, ValueError):
            return False

    def child(self, name: str, *, leaf: bool) -> Cgroup:
        """A sub-cgroup. Under v2 only inner (non-leaf) cgroups delegate controllers, and only leaves hold
        processes (the "no internal processes" rule), so a template lives in a leaf beside its jobs."""
        paths = {controller: path / name for controller, path in self.paths.items()}
        for path in paths.values():
            path.mkdir(exist_ok=True)
        if self.version == 2 and not leaf:
            enable_v2_controllers(paths[UNIFIED])
        return Cgroup(paths, self.version)

    def remove(self) -> None:
        for path in self.paths.values():
            for sub in sorted((p for p in path.iterdir() if p.is_dir()), reverse=True) if path.exists() else []:
                Cgroup({UNIFIED: sub}, 2).remove()
            try:
                path.rmdir()
            except OSError:  # already gone, or still holding a process that kill_all could not end
                pass


def _key_values(text: str) -> dict[str, int]:
    """A flat-keyed cgroup file ("max 3\\noom 0") as a dict."""
    pairs = (line.split() for line in text.splitlines())
    return {fields[0]: int(fields[1]) for fields in pairs if len(fields) == 2}


# ------------------------------------------------------------------------------------------------ layout


@dataclass(frozen=True)
class CgroupLayout:
    """Where this grader makes its pools' cgroups."""

    version: int
    bases: dict[str, Path]  # controller -> the directory the pools' cgroups go in (UNIFIED for v2)
    delegated: bool  # v2: the base is the grader's own cgroup (systemd Delegate=yes, a cgroup namespace)

    def describe(self) -> str:
        if self.version == 1:
            return "cgroup v1: " + ", ".join(str(path) for path in self.bases.values())
        base = self.bases[UNIFIED]
        if self.delegated:
            return (f"cgroup v2: delegated subtree {base} (the grader's own cgroup; it runs in the leaf "
                    f"{SUPERVISOR_LEAF} there)")
        return f"cgroup v2: {base} under the hierarchy's root"


def cgroup_version(root: Path = CGROUP_ROOT) -> int | None:
    if (root / "cgroup.controllers").exists():
        return 2
    if (root / "pids").is_dir() and (root / "memory").is_dir():
        return 1
    return None


def own_v2_cgroup(proc_self_cgroup: str) -> str:
    """This process's v2 cgroup, relative to the cgroup2 mount, from the text of /proc/self/cgroup."""
    for line in proc_self_cgroup.splitlines():
        if line.startswith("0::"):
            path = line[3:].strip()
            if path == "/.." or path.startswith("/../") or "/../" in path:
                # Our cgroup lies outside our cgroup namespace: the mount cannot show it.
                raise CgroupError(f"this process's cgroup {path} lies outside its cgroup namespace; mount cgroup2 "
                                  "from inside the namespace it runs in")
            return path
    raise CgroupError("no cgroup v2 line in /proc/self/cgroup")


def _is_hierarchy_root(path: Path) -> bool:
    # Only the real root lacks cgroup.events; a cgroup namespace's root is an ordinary cgroup and has it.
    return not (path / "cgroup.events").exists()


def _may_delegate(path: Path) -> bool:
    """Can this process make cgroups in `path` and move processes within it (what Delegate=yes hands over)?"""
    return all(os.access(p, os.W_OK) for p in (path, path / "cgroup.procs", path / "cgroup.subtree_control"))


def _available_controllers(path: Path) -> set[str]:
    try:
        return set((path / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def find_layout(root: Path = CGROUP_ROOT, proc_self_cgroup: str | None = None) -> CgroupLayout:
    """Where pools' cgroups can go on this machine; changes nothing (prepare_layout does)."""
    version = cgroup_version(root)
    if version is None:
        raise CgroupError(f"no cgroup v1 'pids' and 'memory' hierarchies and no cgroup v2 under {root}")
    if version == 1:
        return CgroupLayout(1, {c: root / c / CGROUP_PREFIX for c in CONTROLLERS}, delegated=False)
    if _is_hierarchy_root(root) and _may_delegate(root):
        return CgroupLayout(2, {UNIFIED: root / CGROUP_PREFIX}, delegated=False)
    if proc_self_cgroup is None:
        proc_self_cgroup = Path("/proc/self/cgroup").read_text()
    own = root / own_v2_cgroup(proc_self_cgroup).lstrip("/")
    if own.name == SUPERVISOR_LEAF and own != root and _may_delegate(own.parent):
        base = own.parent
    elif _may_delegate(own):
        base = own
    else:
        raise CgroupError(
            f"cgroup v2: uid {os.geteuid()} may not write {root} and its own cgroup {own} is not delegated to it. "
            "Run the grader as root, in a systemd unit with Delegate=yes (User= the grader's user), or in a "
            "container with --cgroupns=private and a writable cgroup2 mount (docs/operations.md: Operating the sandbox)"
        )
    missing = [c for c in CONTROLLERS if c not in _available_controllers(base)]
    if missing:
        raise CgroupError(
            f"cgroup v2: the controllers {' and '.join(missing)} are not available in {base} (its "
            f"cgroup.controllers): enable them in the parent's cgroup.subtree_control, e.g. systemd "
            "Delegate=yes or Delegate=pids memory"
        )
    return CgroupLayout(2, {UNIFIED: base}, delegated=True)


def enable_v2_controllers(path: Path) -> None:
    """Let `path`'s children use the pids and memory controllers (its cgroup.subtree_control)."""
    control = path / "cgroup.subtree_control"
    try:
        enabled = set(control.read_text().split())
    except OSError as exc:
        raise CgroupError(f"cannot read {control}: {exc.strerror}") from None
    wanted = [c for c in CONTROLLERS if c not in enabled]
    if not wanted:
        return
    missing = [c for c in wanted if c not in _available_controllers(path)]
    if missing:
        raise CgroupError(f"the controllers {' and '.join(missing)} are not available in {path}: enable them in "
                          f"its parent's cgroup.subtree_control")
    try:
        control.write_text(" ".join(f"+{c}" for c in wanted))
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            holders = _procs(path)
            raise CgroupError(
                f"cannot enable {' and '.join(wanted)} in {path}: it holds processes {holders[:10]} and cgroup v2 "
                "lets only a cgroup without processes of its own hand controllers to its children. Run the grader "
                "in a cgroup of its own (a systemd unit with Delegate=yes, or as the container's main process)"
            ) from None
        raise CgroupError(f"cannot enable {' and '.join(wanted)} in {control}: {exc.strerror}") from None


def _procs(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _move_processes_to_leaf(base: Path) -> None:
    """Empty `base` of processes (this grader and what runs beside it) into its SUPERVISOR_LEAF, so that `base`
    may enable controllers for the pools: systemd's own advice for a service with Delegate=yes."""
    if not _procs(base):
        return
    leaf = base / SUPERVISOR_LEAF
    leaf.mkdir(exist_ok=True)
    for pid in _procs(base):
        try:
            (leaf / "cgroup.procs").write_text(str(pid))
        except ProcessLookupError:
            continue  # exited meanwhile
        except OSError:
            continue  # not ours to move: enable_v2_controllers then names it


def prepare_layout(layout: CgroupLayout) -> None:
    """Make the base directories and enable the controllers down to them."""
    if layout.version == 1:
        for path in layout.bases.values():
            path.mkdir(parents=True, exist_ok=True)
        return
    base = layout.bases[UNIFIED]
    if layout.delegated:
        _move_processes_to_leaf(base)
    else:
        enable_v2_controllers(base.parent)
        base.mkdir(exist_ok=True)
    enable_v2_controllers(base)


def create_root_cgroup(name: str | None = None, layout: CgroupLayout | None = None) -> Cgroup:
    """A cgroup for one pool (it owns one child cgroup per warm template)."""
    name = name or f"{CGROUP_PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        layout = layout or find_layout()
        prepare_layout(layout)
        paths = {controller: base / name for controller, base in layout.bases.items()}
        for path in paths.values():
            path.mkdir(exist_ok=True)
        group = Cgroup(paths, layout.version)
        if layout.version == 2:
            enable_v2_controllers(paths[UNIFIED])
        return group
    except OSError as exc:
        raise CgroupError(f"cannot create a cgroup under {CGROUP_ROOT} ({exc.strerror}); run the grader as root or "
                          "delegate a writable cgroup subtree to its user "
                          "(docs/operations.md: Operating the sandbox)") from None


def remove_stale_cgroups(layout: CgroupLayout | None = None) -> None:
    """Remove empty cgroups left by a grader that died (their processes died with it via --die-with-parent)."""
    try:
        layout = layout or find_layout()
    except (CgroupError, OSError):
        return  # nothing of ours can be there; create_root_cgroup reports why
    for base in layout.bases.values():
        if not base.is_dir():
            continue
        for path in base.iterdir():
            if path.is_dir() and path.name.startswith(f"{CGROUP_PREFIX}-"):
                pid = path.name.split("-")[1]
                if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                    Cgroup({UNIFIED: path}, 2).remove()


def host_pid_of(cgroup: Cgroup, namespace_pid: int) -> int | None:
    """Map a pid inside the sandbox's pid namespace to the host pid, among the processes of `cgroup`."""
    for pid in cgroup.pids():
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("NSpid:"):
                        fields = line.split()[1:]
                        if len(fields) > 1 and int(fields[-1]) == namespace_pid:
                            return pid
                        break
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return None
