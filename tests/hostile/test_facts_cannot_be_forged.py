"""The facts a verdict rests on cannot be forged by the submission, although it shares the worker's process.

On the old worker, a submission wrapped `__main__._serve_call` and scrubbed `mutated`, `aliased`, the gradients
and `requires_grad` from every reply, turning seven failed required checks into "solved". Each test below tries
one route to the worker's code or to the facts it reports, and shows it closed."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from grader.problems import Problem, load_problem
from grader.report import Report
from tests.hostile.hostile_support import REPO, assert_unsolved_within, messages

GradeCode = Callable[..., Report]
ECHO_DIR = REPO / "tests" / "fixtures" / "problems" / "echo"


@pytest.fixture(scope="module")
def echo() -> Problem:
    return load_problem(ECHO_DIR)


def probe(grade_code: GradeCode, echo: Problem, body: str) -> Any:
    """Grade a submission whose probe(x) runs `body` (which returns a JSON-able value); give back that value."""
    code = "def probe(x):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    report = grade_code(code, problem=echo)
    message = messages(report)["probe.echo"]
    assert message.startswith("returned: "), message
    return json.loads(message.removeprefix("returned: "))


# The forgery that worked on the old worker, as its author wrote it: find the worker's serving function and
# wrap it so every reply claims a clean call.
SCRUBBING_SUBMISSION = '''
import sys

def _scrub(serve):
    def forged(*args, **kwargs):
        reply = serve(*args, **kwargs)
        reply.update(mutated=[], aliased=[])
        return reply
    return forged

for module in list(sys.modules.values()):
    for name in ("_serve_call", "Served"):
        try:
            target = module.__dict__.get(name)
            if callable(target) and name == "_serve_call":
                setattr(module, name, _scrub(target))
            elif isinstance(target, type):
                target.call = _scrub(target.call)
        except Exception:
            pass

def add_one(x):
    x.add_(1)  # in place, and returns the caller's own storage
    return x

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


def test_wrapping_the_workers_serving_code_forges_nothing(grade_code: GradeCode) -> None:
    report = grade_code(SCRUBBING_SUBMISSION)
    assert_unsolved_within(report, 30)
    assert "modified its argument(s) x in place" in messages(report)["add_one.fresh_storage"]


def test_the_worker_is_not_in_sys_modules(grade_code: GradeCode, echo: Problem) -> None:
    found = probe(grade_code, echo, '''
        import sys, __main__
        names = [name for name, module in list(sys.modules.items())
                 if any(attr in getattr(module, "__dict__", {}) for attr in ("Served", "_serve_call", "LearnerThread"))]
        return {"main": sorted(vars(__main__))[:20], "modules": names}
    ''')
    assert found == {"main": ["__doc__", "__loader__", "__name__", "__package__", "__spec__"], "modules": []}


def test_the_workers_modules_cannot_be_imported_again(grade_code: GradeCode, echo: Problem) -> None:
    # Its private importer is gone with its modules: `grader` is not a name the learner's code can import (on the
    # host unsandboxed, the checkout's grader/ is not on sys.path either), and no finder of the worker's remains.
    found = probe(grade_code, echo, '''
        import sys
        outcomes = {}
        for name in ("grader", "grader.protocol", "grader.sandboxed.serving", "grader.judge", "worker", "serving"):
            try:
                __import__(name)
                outcomes[name] = "imported"
            except ImportError as exc:
                outcomes[name] = type(exc).__name__
        finders = [type(finder).__name__ for finder in sys.meta_path]
        return {"outcomes": outcomes, "private finder": "PrivateFinder" in finders}
    ''')
    assert found == {"outcomes": dict.fromkeys(("grader", "grader.protocol", "grader.sandboxed.serving",
                                                "grader.judge", "worker", "serving"), "ModuleNotFoundError"),
                     "private finder": False}


def test_the_learners_frames_lead_nowhere(grade_code: GradeCode, echo: Problem) -> None:
    # Every frame of the learner's thread, and every global those frames see, walking up to the bottom.
    found = probe(grade_code, echo, '''
        import sys
        frame, seen = sys._getframe(), []
        while frame is not None:
            seen.append([frame.f_code.co_filename, sorted(k for k in frame.f_globals if not k.startswith("__"))])
            frame = frame.f_back
        return seen
    ''')
    assert found[0][0] == "submission.py"
    assert [filename for filename, _ in found[1:]] == ["<paperlab learner thread>"]
    # grader/sandboxed/learner_side.py's names; `annotations` and `TYPE_CHECKING` are a __future__ feature and a bool
    assert found[1][1] == ["BoundedWriter", "StandIn", "TYPE_CHECKING", "annotations", "banned",
                           "capped_recursion_limit", "closed", "guarded_library", "serve"]


@pytest.mark.parametrize(
    "attempt, refused",
    [
        pytest.param("import gc; gc.get_objects()", "gc.get_objects", id="gc-objects"),
        pytest.param("import gc; gc.get_referrers(x)", "gc.get_referrers", id="gc-referrers"),
        pytest.param("import gc; gc.get_referents(x)", "gc.get_referents", id="gc-referents"),
        pytest.param("import sys; sys._current_frames()", "sys._current_frames", id="other-threads-frames"),
        pytest.param("import sys; sys.settrace(lambda *a: None)", "sys.settrace", id="settrace"),
        pytest.param("import sys; sys.setprofile(lambda *a: None)", "sys.setprofile", id="setprofile"),
        pytest.param("import ctypes; ctypes.string_at(id(x), 8)", "ctypes", id="ctypes-read"),
        pytest.param("import ctypes; ctypes.CDLL(None)", "ctypes", id="ctypes-dlopen"),
        pytest.param("open('/proc/self/mem', 'rb')", "process memory", id="proc-self-mem"),
        pytest.param("import os; os.open('/proc/thread-self/mem', os.O_RDWR)", "process memory", id="thread-mem"),
        pytest.param("open('/proc/1/mountinfo')", "mount tables", id="mountinfo"),
        pytest.param("import os; os.symlink('/proc/self/mem', '/tmp/m'); open('/tmp/m', 'rb')", "process memory",
                     id="symlink-to-mem"),
        pytest.param("import os; fd = os.open('/proc/self', os.O_RDONLY); os.open('mem', os.O_RDONLY, dir_fd=fd)",
                     "absolute path", id="relative-to-a-directory-fd"),
    ],
)
def test_introspection_and_raw_memory_are_refused(
    grade_code: GradeCode, echo: Problem, attempt: str, refused: str
) -> None:
    found = probe(grade_code, echo, f'''
        try:
            {attempt}
        except PermissionError as exc:
            return "refused: " + str(exc)
        return "allowed"
    ''')
    assert isinstance(found, str) and found.startswith("refused: ") and refused in found, found


def test_the_submission_cannot_add_an_audit_hook(grade_code: GradeCode, echo: Problem) -> None:
    # A hook of the learner's would run on the grader's thread for every event there; Python drops a hook
    # that an existing hook refuses, silently.
    found = probe(grade_code, echo, '''
        import sys
        seen = []
        sys.addaudithook(lambda event, args: seen.append(event))
        open("/tmp/touched", "w").close()
        return seen
    ''')
    assert found == []


def test_rebinding_torch_and_builtins_changes_no_fact(grade_code: GradeCode) -> None:
    # The worker reads requires_grad, storages and shapes through torch's C descriptors and its own builtins,
    # so lying classes and rebound builtins change nothing it reports.
    report = grade_code('''
import builtins
import torch

torch.Tensor.requires_grad = property(lambda self: True)
torch.Tensor.untyped_storage = lambda self: torch.UntypedStorage(8)
torch.Tensor.__torch_function__ = classmethod(
    lambda cls, func, types, args=(), kwargs=None: func(*args, **(kwargs or {})))
builtins.type = lambda value: object
builtins.len = lambda value: 0

def add_one(x):
    return x.add_(1)

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return (x.sum() * factor).detach()
''')
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert "modified its argument(s) x in place" in found["add_one.fresh_storage"]
    assert "no gradient could flow back to x" in found["scaled_sum.gradient"]


def test_a_frame_the_submission_writes_on_the_channel_is_refused(grade_code: GradeCode) -> None:
    # A well-formed frame claiming a passing result, written straight on the job socket: it is not signed with
    # the child's key, so the judge refuses it and blames the submission.
    report = grade_code('''
import json, os, socket, stat, struct, time

def add_one(x):
    header = json.dumps({"op": "results", "results": [{"value": {"tensor": {}}, "raised": None, "grads": {},
                         "mutated": [], "aliased": [], "shares": []}], "_blobs": []}).encode()
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                channel = socket.socket(fileno=os.dup(fd))
                if channel.type == socket.SOCK_STREAM:
                    channel.sendall(struct.pack(">II", len(header), 0) + bytes(32) + header)
        except OSError:
            continue
    time.sleep(60)

def scaled_sum(x, factor):
    return x.sum() * factor
''')
    assert_unsolved_within(report, 30)
    check = report.checks[0]
    assert check.status == "failed" and "did not sign" in check.message, check.message


def test_finalizers_on_the_graders_thread_cannot_reach_its_frames(grade_code: GradeCode, echo: Problem) -> None:
    # An object whose finalizer would run wherever its last reference dies: the worker lets the learner's
    # thread drop what the learner returned, and frames are refused on the grader's thread anyway.
    found = probe(grade_code, echo, '''
        import sys, threading
        record = []

        class Spy:
            def __del__(self):
                try:
                    frame = sys._getframe(1)
                    record.append(["frame", frame.f_code.co_filename, threading.get_ident() == main])
                except PermissionError as exc:
                    record.append(["refused", str(exc)])

        main = threading.main_thread().ident
        globals()["keep"] = record
        probe.spy = Spy()
        del probe.spy
        return record
    ''')
    assert all(entry[0] == "refused" or entry[2] is False for entry in found), found


# The trampoline that runs each call (its frame is the one below the learner's) is woken through a pipe: a
# submission can reach the function that reads it, and the pipe's descriptors. Each route below may break the
# submission's own calls, never make a call it did not answer pass or leave the grading hanging.
WAKE_ROUTES = {
    "closes the reading end": "os.close(wake.args[0])",
    "swaps the reading end for another pipe": "other = os.pipe()\n    os.dup2(other[0], wake.args[0])",
    "reads the next wake-up itself": "threading.Thread(target=wake, daemon=True).start()",
}


@pytest.mark.parametrize("route", list(WAKE_ROUTES), ids=list(WAKE_ROUTES))
def test_the_pipe_that_wakes_the_learners_thread_forges_nothing(grade_code: GradeCode, route: str) -> None:
    code = f'''
import os, sys, threading

done = []

def _sabotage():
    if done:
        return
    frame = sys._getframe(1)
    while frame is not None and "wake" not in frame.f_locals:
        frame = frame.f_back
    wake = frame.f_locals["wake"]
    done.append(True)
    {WAKE_ROUTES[route]}

def add_one(x):
    _sabotage()
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''
    assert_unsolved_within(grade_code(code), 60)  # every check fails or passes on the calls it answered


DRIP = '''
import os, socket, stat, time

def _drip(seconds):
    channel = None
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                candidate = socket.socket(fileno=os.dup(fd))
                if candidate.type == socket.SOCK_STREAM:
                    channel = candidate
                    break
        except OSError:
            continue
    end = time.monotonic() + seconds
    while channel is not None and time.monotonic() < end:
        channel.send(b"\\x00")  # one byte every half second: a frame prefix takes 20 s
        time.sleep(0.5)
'''


@pytest.mark.parametrize(
    "where, code",
    [
        pytest.param("call", DRIP + "\ndef add_one(x):\n    _drip(40)\n\ndef scaled_sum(x, factor):\n    _drip(40)\n",
                     id="during-a-call"),
        pytest.param("load", DRIP + "\n_drip(40)\n", id="during-loading"),
    ],
)
def test_a_reply_trickled_byte_by_byte_still_meets_its_deadline(grade_code: GradeCode, where: str, code: str) -> None:
    # The old judge's timeout applied to each recv, so a byte every 0.5 s kept a 3 s call alive for 40 s.
    # A frame now has one deadline, and the submission's total limit (20 s for this problem) holds within it.
    report = grade_code(code)
    assert_unsolved_within(report, 25)
    if where == "load":
        assert report.error is not None and "time limit 5 s exceeded in loading your code" in report.error.message
    else:
        # The child's own clock ends the call at 3 s and says so in a signed frame, which lands behind the bytes
        # the submission wrote on the channel: the judge then reads a frame it cannot verify (or, when its
        # deadline comes first, nothing whole).
        found = report.checks[0]
        assert (found.id, found.limit) in {("add_one.values", "tampering"), ("add_one.values", "time")}, found
        assert found.message.startswith(("your code wrote on the grader's channel", "time limit 3 s exceeded"))


# The judge sends a check's request the moment the reply before it is read (grader.session): a write to an
# argument must be seen in its arena before the learner's next call can put the bytes back.
RESTORED_BY_THE_NEXT_REQUEST = '''
import torch

_kept = []

def add_one(x):
    if tuple(x.shape) == (3,):  # the fresh-storage check's call, the second request of the first exchange
        x.numpy()[:] += 1.0  # through NumPy: no version counter sees it
        _kept.append(x)
        return x.clone()  # the right values, in new storage
    return x + 1

def scaled_sum(x, factor):
    for kept in _kept:  # the next request, already in the worker: put the bytes back before anyone looks
        kept.numpy()[:] -= 1.0
    _kept.clear()
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


def test_a_write_put_back_by_the_next_request_is_still_seen(grade_code: GradeCode) -> None:
    report = grade_code(RESTORED_BY_THE_NEXT_REQUEST)
    assert not report.solved
    assert "modified its argument(s) x in place" in messages(report)["add_one.fresh_storage"]
    assert messages(report)["scaled_sum.values"] == ""


# A memoised mask, and every way the submission can reach the comparison: torch's storage accessors rebound to
# report a new address each time, and a helper-shaped function left where the check once looked.
MEMOISED_AND_DISGUISED = '''
import itertools
import torch

_addresses = itertools.count(1 << 20, 1 << 12)
torch.UntypedStorage.data_ptr = lambda self: next(_addresses)
torch.Tensor.data_ptr = lambda self: next(_addresses)
torch.Tensor.untyped_storage = lambda self: torch.UntypedStorage(8)

import helpers
helpers.two_masks = lambda functions, T, window: (functions["sliding_window_mask"](T, window).clone(),) * 2 + (False,)

_table = {}

def sliding_window_mask(T, window):
    helpers.check_length_and_window(T, window)
    if (T, window) not in _table:
        i = torch.arange(T).unsqueeze(1)
        j = torch.arange(T).unsqueeze(0)
        _table[T, window] = (j <= i) & (j > i - window)
    return _table[T, window]
'''


def test_a_memoised_mask_is_seen_however_the_submission_disguises_it(grade_code: GradeCode) -> None:
    # sliding_window's mask must be new on every call. The worker keeps the first call's result and compares the
    # second's memory with it through what it captured before the submission loaded, so none of the rebinding
    # above reaches it.
    problem = load_problem(REPO / "problems" / "sliding_window")
    reference = (REPO / "problems" / "sliding_window" / "reference.py").read_text()
    without_mask = reference.replace("def sliding_window_mask(", "def _reference_mask(")
    report = grade_code(without_mask + MEMOISED_AND_DISGUISED, problem=problem)
    assert not report.solved
    assert "share memory" in messages(report)["mask.new_each_call"]
