"""A child's process cap: its cgroup's pids.max where it has a cgroup of its own, RLIMIT_NPROC where it has none.

RLIMIT_NPROC counts every process of the user (the template and the other children included) and is ignored
for root, so under a cgroup it would stop an unprivileged grader's fork bomb before pids.max, and the verdict
would not name the process limit."""

from __future__ import annotations

import resource
from dataclasses import dataclass, field
from typing import Any

import pytest

from grader.interleave import Answer
from grader.limits import Limits
from grader.messages import Loaded, LoadRequest
from grader.sandboxed import rlimits
from grader.session import WorkerSession

LIMITS = Limits(max_processes=8, memory_mb=256, cpu_time_s=10, file_size_mb=16, open_files=64).model_dump()


@pytest.mark.parametrize(("processes_capped", "nproc"), [(True, None), (False, 8)],
                         ids=["a-cgroup-caps-the-processes", "no-cgroup"])
def test_the_child_sets_rlimit_nproc_only_without_a_cgroup(processes_capped: bool, nproc: int | None) -> None:
    wanted = rlimits.child_rlimits(LIMITS, vm_data_kb=1024, processes_capped=processes_capped)
    assert wanted.get(resource.RLIMIT_NPROC) == nproc


@pytest.mark.parametrize("processes_capped", [True, False])
def test_the_other_limits_do_not_depend_on_the_cgroup(processes_capped: bool) -> None:
    wanted = rlimits.child_rlimits(LIMITS, vm_data_kb=1024, processes_capped=processes_capped)
    wanted.pop(resource.RLIMIT_NPROC, None)
    data = 1024 * 1024 + 256 * 1024 * 1024 + rlimits.DATA_RESERVE_BYTES  # what the child has, its limit, the reserve
    assert wanted == {resource.RLIMIT_DATA: data, resource.RLIMIT_CPU: 10,
                      resource.RLIMIT_FSIZE: 16 * 1024 * 1024, resource.RLIMIT_NOFILE: 64, resource.RLIMIT_CORE: 0,
                      resource.RLIMIT_MSGQUEUE: 0}


@dataclass
class RecordingChild:
    """A child that records the load request it was sent and answers that the code loaded."""

    cgroup: object | None
    key: bytes = b"\0" * 32
    sent: list[LoadRequest] = field(default_factory=list)

    def send_load(self, request: LoadRequest, **_: Any) -> Answer:
        self.sent.append(request)
        return Answer(message=Loaded(ok=True, functions=(), raised=None, output=""), blobs=[])


@dataclass
class OneChildTemplate:
    child: RecordingChild

    def alive(self) -> bool:
        return True

    def take_child(self, limits: Limits) -> RecordingChild:
        return self.child


@pytest.mark.parametrize(("cgroup", "processes_capped"), [(object(), True), (None, False)],
                         ids=["child-in-a-cgroup", "child-without-a-cgroup"])
def test_the_judge_tells_the_child_whether_its_cgroup_caps_its_processes(cgroup: object | None,
                                                                         processes_capped: bool) -> None:
    child = RecordingChild(cgroup=cgroup)
    session = WorkerSession(pool=None, template=OneChildTemplate(child), code="", limits=Limits())  # type: ignore[arg-type]
    session.load()
    assert [request.processes_capped for request in child.sent] == [processes_capped]
    assert child.sent[0].to_wire()["processes_capped"] is processes_capped
