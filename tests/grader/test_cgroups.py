"""Where the grader makes its cgroups and how it reads them, on a fake cgroup tree in tmp_path (no privileges,
no cgroup v2 host needed). The same logic runs for real in `make test-cgroup2`'s guest."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from grader import cgroups
from grader.cgroups import (
    SUPERVISOR_LEAF,
    UNIFIED,
    Cgroup,
    CgroupError,
    CgroupLayout,
    create_root_cgroup,
    enable_v2_controllers,
    find_layout,
    own_v2_cgroup,
    prepare_layout,
    remove_stale_cgroups,
)

DEAD_PID = 999_999_999  # above pid_max: no such process


def make_v2_cgroup(path: Path, *, controllers: str = "cpu memory pids", procs: str = "",
                   hierarchy_root: bool = False) -> Path:
    """The files of a v2 cgroup that the grader reads; only the hierarchy's real root lacks cgroup.events."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "cgroup.controllers").write_text(controllers + "\n")
    (path / "cgroup.subtree_control").write_text("\n")
    (path / "cgroup.procs").write_text(procs)
    if not hierarchy_root:
        (path / "cgroup.events").write_text("populated 0\nfrozen 0\n")
    return path


@pytest.fixture
def v2_root(tmp_path: Path) -> Path:
    return make_v2_cgroup(tmp_path / "cgroup", hierarchy_root=True)


def delegable(monkeypatch: pytest.MonkeyPatch, *writable: Path) -> None:
    """Which cgroups this process may write (as root, os.access says yes to everything)."""
    monkeypatch.setattr(cgroups, "_may_delegate", lambda path: path in writable)


# ------------------------------------------------------------------------------------------------ layout


def test_cgroup_v1_puts_the_pools_under_each_controllers_hierarchy(tmp_path: Path) -> None:
    for controller in ("pids", "memory"):
        (tmp_path / controller).mkdir()
    layout = find_layout(tmp_path, "")
    assert layout == CgroupLayout(1, {c: tmp_path / c / "paperlab" for c in ("pids", "memory")}, delegated=False)


def test_no_cgroup_hierarchy_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(CgroupError, match="no cgroup v1 'pids' and 'memory' hierarchies and no cgroup v2"):
        find_layout(tmp_path, "")


@pytest.mark.parametrize(
    ("own", "writable", "expected_base", "delegated"),
    [
        pytest.param("/", [""], "paperlab", False, id="root-of-the-hierarchy"),
        pytest.param("/system.slice/paperlab.service", ["", "system.slice/paperlab.service"], "paperlab", False,
                     id="root-prefers-the-hierarchy-root"),
        pytest.param("/system.slice/paperlab.service", ["system.slice/paperlab.service"],
                     "system.slice/paperlab.service", True, id="systemd-delegate-yes"),
        pytest.param(f"/system.slice/paperlab.service/{SUPERVISOR_LEAF}",
                     ["system.slice/paperlab.service", f"system.slice/paperlab.service/{SUPERVISOR_LEAF}"],
                     "system.slice/paperlab.service", True, id="already-moved-into-its-leaf"),
        pytest.param("/user.slice/user-1000.slice/user@1000.service/app.slice/grader.scope",
                     ["user.slice/user-1000.slice/user@1000.service/app.slice",
                      "user.slice/user-1000.slice/user@1000.service/app.slice/grader.scope"],
                     "user.slice/user-1000.slice/user@1000.service/app.slice/grader.scope", True,
                     id="a-user-scope-never-spills-into-its-slice"),
    ],
)
def test_cgroup_v2_base(v2_root: Path, monkeypatch: pytest.MonkeyPatch, own: str, writable: list[str],
                        expected_base: str, delegated: bool) -> None:
    own_dir = make_v2_cgroup(v2_root / own.lstrip("/")) if own != "/" else v2_root
    for parent in own_dir.parents:
        if v2_root in parent.parents:
            make_v2_cgroup(parent)
    delegable(monkeypatch, *(v2_root / path if path else v2_root for path in writable))
    layout = find_layout(v2_root, f"0::{own}\n")
    assert layout == CgroupLayout(2, {UNIFIED: v2_root / expected_base if expected_base else v2_root}, delegated)


def test_a_container_namespace_root_is_delegated_not_the_hierarchy_root(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # --cgroupns=private: the mount's root is the container's cgroup, which has cgroup.events, and the
    # no-internal-processes rule applies to it, so the grader must treat it as a delegated cgroup.
    root = make_v2_cgroup(tmp_path / "cgroup", hierarchy_root=False)
    delegable(monkeypatch, root)
    assert find_layout(root, "0::/\n") == CgroupLayout(2, {UNIFIED: root}, delegated=True)


def test_an_undelegated_cgroup_is_refused_with_what_to_do(v2_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_v2_cgroup(v2_root / "user.slice" / "session-1.scope")
    delegable(monkeypatch)
    with pytest.raises(CgroupError, match="session-1.scope is not delegated.*Delegate=yes.*--cgroupns=private"):
        find_layout(v2_root, "0::/user.slice/session-1.scope\n")


def test_a_delegated_cgroup_without_the_memory_controller_is_refused(v2_root: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    unit = make_v2_cgroup(v2_root / "system.slice" / "paperlab.service", controllers="pids")
    delegable(monkeypatch, unit)
    with pytest.raises(CgroupError, match="controllers memory are not available in .*paperlab.service"):
        find_layout(v2_root, "0::/system.slice/paperlab.service\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("0::/\n", "/", id="root"),
        pytest.param("0::/system.slice/paperlab.service\n", "/system.slice/paperlab.service", id="unit"),
        pytest.param("12:pids:/x\n0::/a/b\n", "/a/b", id="hybrid-lines-ignored"),
    ],
)
def test_own_cgroup_is_read_from_proc_self_cgroup(text: str, expected: str) -> None:
    assert own_v2_cgroup(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("0::/../other.scope\n", "outside its cgroup namespace", id="outside-the-namespace"),
        pytest.param("12:pids:/x\n", "no cgroup v2 line", id="v1-only"),
    ],
)
def test_an_own_cgroup_the_mount_cannot_show_is_refused(text: str, message: str) -> None:
    with pytest.raises(CgroupError, match=message):
        own_v2_cgroup(text)


# ------------------------------------------------------------------------------------------------ preparing


def test_controllers_are_enabled_once(v2_root: Path) -> None:
    enable_v2_controllers(v2_root)
    assert (v2_root / "cgroup.subtree_control").read_text() == "+pids +memory"
    (v2_root / "cgroup.subtree_control").write_text("memory pids\n")
    enable_v2_controllers(v2_root)  # already enabled: no write, which a delegatee might not be allowed
    assert (v2_root / "cgroup.subtree_control").read_text() == "memory pids\n"


def test_a_missing_controller_is_named(tmp_path: Path) -> None:
    group = make_v2_cgroup(tmp_path / "g", controllers="cpu pids")
    with pytest.raises(CgroupError, match="memory are not available in .*g: enable them in its parent"):
        enable_v2_controllers(group)


def test_a_cgroup_still_holding_processes_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    group = make_v2_cgroup(tmp_path / "unit", procs="4242\n")
    real_write = Path.write_text

    def write(path: Path, data: str, *args: object, **kwargs: object) -> int:
        if path.name == "cgroup.subtree_control":
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real_write(path, data)

    monkeypatch.setattr(Path, "write_text", write)
    with pytest.raises(CgroupError, match=r"holds processes \[4242\].*cgroup of its own"):
        enable_v2_controllers(group)


def test_a_delegated_base_first_moves_its_processes_into_the_graders_leaf(tmp_path: Path) -> None:
    unit = make_v2_cgroup(tmp_path / "paperlab.service", procs=f"{os.getpid()}\n")
    prepare_layout(CgroupLayout(2, {UNIFIED: unit}, delegated=True))
    assert (unit / SUPERVISOR_LEAF / "cgroup.procs").read_text() == str(os.getpid())
    assert (unit / "cgroup.subtree_control").read_text() == "+pids +memory"


def test_a_pool_cgroup_goes_under_the_base_with_controllers_for_its_templates(tmp_path: Path) -> None:
    unit = make_v2_cgroup(tmp_path / "paperlab.service")
    make_v2_cgroup(unit / "paperlab-1-abc")  # what the kernel would create on mkdir
    group = create_root_cgroup("paperlab-1-abc", CgroupLayout(2, {UNIFIED: unit}, delegated=True))
    assert group == Cgroup({UNIFIED: unit / "paperlab-1-abc"}, 2)
    assert (unit / "paperlab-1-abc" / "cgroup.subtree_control").read_text() == "+pids +memory"


def test_stale_pools_of_dead_graders_are_removed_and_nothing_else(tmp_path: Path) -> None:
    unit = tmp_path / "paperlab.service"
    keep = [unit / SUPERVISOR_LEAF, unit / f"paperlab-{os.getpid()}-live", unit / "other-app"]
    stale = unit / f"paperlab-{DEAD_PID}-dead"
    for path in [*keep, stale / "z1" / "template"]:
        path.mkdir(parents=True)
    remove_stale_cgroups(CgroupLayout(2, {UNIFIED: unit}, delegated=True))
    assert not stale.exists()
    assert all(path.is_dir() for path in keep)


# ------------------------------------------------------------------------------------------------ reading


def test_v2_limits_cap_pids_memory_and_swap(tmp_path: Path) -> None:
    (tmp_path / "memory.swap.max").write_text("max\n")
    Cgroup({UNIFIED: tmp_path}, 2).limit(max_pids=16, memory_bytes=1 << 30)
    assert [(tmp_path / name).read_text() for name in ("pids.max", "memory.max", "memory.swap.max")] == [
        "16", str(1 << 30), "0"]


@pytest.mark.parametrize(
    ("events", "exceeded"),
    [
        pytest.param("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", False, id="quiet"),
        pytest.param("low 0\nhigh 0\nmax 3\noom 0\noom_kill 0\n", True, id="hit-the-cap"),
        pytest.param("low 0\nhigh 0\nmax 0\noom 1\noom_kill 1\n", True, id="oom-killed"),
    ],
)
def test_v2_memory_events(tmp_path: Path, events: str, exceeded: bool) -> None:
    (tmp_path / "memory.events").write_text(events)
    assert Cgroup({UNIFIED: tmp_path}, 2).memory_exceeded() is exceeded


@pytest.mark.parametrize(
    ("events", "exhausted"),
    [pytest.param("max 0\n", False, id="under"), pytest.param("max 12\n", True, id="hit"),
     pytest.param("", False, id="empty")],
)
def test_v2_pids_events(tmp_path: Path, events: str, exhausted: bool) -> None:
    (tmp_path / "pids.events").write_text(events)
    assert Cgroup({UNIFIED: tmp_path}, 2).pids_exhausted() is exhausted


def test_pids_include_every_cgroup_below(tmp_path: Path) -> None:
    (tmp_path / "cgroup.procs").write_text("")
    for name, pids in (("template", "10\n11\n"), ("job1", "12\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "cgroup.procs").write_text(pids)
    assert sorted(Cgroup({UNIFIED: tmp_path}, 2).pids()) == [10, 11, 12]
