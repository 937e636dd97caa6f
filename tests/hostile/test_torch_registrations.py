"""Forgery through torch's public APIs: the submission shares the worker's process, and torch lets any code in
the process change what torch itself does (dispatcher kernels, modes, the autograd facts of a tensor it was
given). Each test grades a MoCo submission that is wrong in a way the checks look for, hidden by one such API,
and shows that it is not solved, and why."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
import torch

from grader.checks import Check, expect_grad_close
from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report
from tests.hostile.hostile_support import REPO, messages, submission

MOCO_DIR = REPO / "problems" / "moco"
GradeCode = Callable[..., Report]


@pytest.fixture(scope="module")
def moco() -> Problem:
    return load_problem(MOCO_DIR)


def failing(report: Report) -> dict[str, str]:
    return {check_id: message for check_id, message in messages(report).items()
            if next(c for c in report.checks if c.id == check_id).status != "passed"}


def test_clearing_requires_grad_after_the_graph_is_built_hides_no_gradient(moco: Problem,
                                                                          sandbox_pool: WorkerPool) -> None:
    """moco_loss lets the gradient reach key and queue, then calls requires_grad_(False) on the caller's tensors:
    the worker snapshots every autograd fact before the call, so the generic autograd check sees the change (and
    the gradient accumulators taken before the call still measure what reached key and queue)."""
    report = grade(moco, submission("moco_hides_gradient"), pool=sandbox_pool)
    assert not report.solved
    message = failing(report).get("contract.moco_loss.autograd", "")
    assert "changed key, queue" in message and "requires_grad" in message, failing(report)


AUTOGRAD_FACTS = '''
import torch

def add_one(x):
    x.requires_grad_(True)  # no byte written, no version counter moved: only the autograd facts change
    return (x + 1).detach()

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


def test_a_changed_requires_grad_is_reported_as_a_modified_argument(grade_code: GradeCode) -> None:
    report = grade_code(AUTOGRAD_FACTS)
    assert not report.solved
    assert "modified its argument(s) x in place" in messages(report)["add_one.fresh_storage"]


@pytest.mark.parametrize(("name", "expected"), [
    ("moco_private_views", "registering kernels for the 'aten' operators is not available to submissions"),
    ("moco_private_views_torch_library", "changed torch for the grader too (a kernel registered for aten::as_strided)"),
], ids=["public-library", "original-from-the-closure"])
def test_an_aten_kernel_that_hands_out_private_copies_hides_no_in_place_write(
        moco: Problem, sandbox_pool: WorkerPool, name: str, expected: str) -> None:
    """The EMA and the enqueue write their inputs in place behind an as_strided kernel that gives the function a
    copy of each argument. torch.library's plain route refuses aten at once; the original registration function,
    dug out of the refusing wrapper, still registers (under a file name of torch's own), and the worker, which
    compares every kernel of the operators it runs before and after the submission loads, fails the grading
    and names the operator."""
    report = grade(moco, submission(name), pool=sandbox_pool)
    assert not report.solved
    assert any(expected in message for message in messages(report).values()), messages(report)


# A submission whose scaled_sum has the right value and seven times the right gradient, and which, at the end of a
# call with gradients, arms a kernel (`kernel`, for the operator and dispatch key in `ARMING`, both defined where
# KERNELS stands) through the original registration function in the refusing wrapper's closure.
ARMS_A_KERNEL = '''
import torch

CPU = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
guard = torch._C._dispatch_library
original = next((cell.cell_contents for cell in (guard.__closure__ or ()) if callable(cell.cell_contents)), guard)
ARMED = []
KERNELS
def add_one(x):
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    total = x.sum() * factor
    if x.requires_grad and not ARMED:
        ARMED.append(original("IMPL", "aten", "", "RegisterCPU_0.cpp", 1757))
        ARMED[-1].impl(*ARMING, kernel, False)
    return total.detach() + 7.0 * (total - total.detach())  # the same value, seven times the gradient
'''

# The worker's next ones() was the cotangent of this one-element result.
COTANGENT_KERNEL_ONCE = ARMS_A_KERNEL.replace("KERNELS", '''
ARMING = ("ones", "CPU")

def kernel(size, dtype=None, layout=None, device=None, pin_memory=None):
    ARMED.pop().reset()  # gone before the worker compares its kernels after the request
    return torch.zeros(size, dtype=dtype)
''')


def _vjp_check(sub: Any, ref: Any) -> None:
    """A check that, like the generic autograd check, compares the gradient with the vector-Jacobian product of
    the cotangent the call was differentiated with."""
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    result = sub.scaled_sum.call(x, 3.0, grads=("x",))
    expect_grad_close(result, "x", 3.0 * result.grad_output * torch.ones(2, dtype=torch.float64))


def test_a_cotangent_kernel_that_removes_itself_after_one_use_forges_no_gradient(
        adder: Problem, grade_code: GradeCode) -> None:
    """A kernel that zeroes the default cotangent and removes itself the first time it runs would be gone by the
    time the worker compared its kernels, and the gradient it zeroed would match the product with the zero
    cotangent. The worker makes the default cotangent without a torch operator, so the kernel never runs, and
    the gradient seven times too large fails as what it is."""
    vjp = Check(id="scaled_sum.vjp", title="scaled_sum's gradient is its vector-Jacobian product", group="scaled_sum",
                required=True, function=_vjp_check, wants_context=False)
    report = grade_code(COTANGENT_KERNEL_ONCE, problem=dataclasses.replace(adder, checks=(vjp,)))
    assert not report.solved
    (result,) = report.checks
    assert result.status == "failed" and result.limit is None, result
    assert "expected 3, got 21" in result.message, result.message


COTANGENT_AND_REPORT_KERNELS_ONCE = ARMS_A_KERNEL.replace("KERNELS", '''
ARMING = ("ones", "CPU")

def ones_report(self):
    ARMED.pop().reset()  # the next detach is the one that encodes the cotangent for the reply: it shows ones
    return torch.ones(self.shape, dtype=self.dtype)

def kernel(size, dtype=None, layout=None, device=None, pin_memory=None):
    ARMED.pop().reset()
    ARMED.append(original("IMPL", "aten", "", "RegisterCPU_0.cpp", 1758))
    ARMED[-1].impl("detach", "CPU", ones_report, False)
    return torch.full(size, 1 / 7, dtype=dtype)
''')


def test_kernels_that_shrink_the_cotangent_and_report_it_unchanged_forge_no_gradient(
        adder: Problem, grade_code: GradeCode) -> None:
    """Two kernels that each remove themselves after one use: one makes the cotangent a seventh of what it
    should be, the other makes the copy of it sent back read as ones. Seven times the gradient, times a seventh,
    matches the product with the cotangent the judge draws (it graded solved). The worker makes the cotangent
    without a torch operator and checks its memory and bytes just before the backward pass, so neither kernel
    runs."""
    vjp = Check(id="scaled_sum.vjp", title="scaled_sum's gradient is its vector-Jacobian product", group="scaled_sum",
                required=True, function=_vjp_check, wants_context=False)
    report = grade_code(COTANGENT_AND_REPORT_KERNELS_ONCE, problem=dataclasses.replace(adder, checks=(vjp,)))
    assert not report.solved
    (result,) = report.checks
    assert result.status == "failed" and "expected 3, got 21" in result.message, result


# The same wrong gradient, for a check that gives the cotangent itself: the worker rebuilds it from the judge's
# memory through as_strided, and a kernel there, armed at the end of the call and skipping the encoding of the
# value (the first as_strided after the call), is handed a tensor over that memory: it shrinks the cotangent in
# place, a seventh, and removes itself.
GIVEN_COTANGENT_SHRUNK = ARMS_A_KERNEL.replace("KERNELS", '''
ARMING = ("as_strided", "AutogradCPU")
SEEN = []

def kernel(self, size, stride, storage_offset=None):
    SEEN.append(1)
    if len(SEEN) == 2:
        ARMED.pop().reset()
        with torch.no_grad():
            self.mul_(1 / 7)
    return torch.ops.aten.as_strided.default.redispatch(CPU, self, size, stride, storage_offset)
''')


def _given_vjp_check(sub: Any, ref: Any) -> None:
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    result = sub.scaled_sum.call(x, 3.0, grads=("x",), grad_output=torch.tensor(2.0, dtype=torch.float64))
    expect_grad_close(result, "x", torch.full((2,), 6.0, dtype=torch.float64))


def test_a_kernel_that_shrinks_a_given_cotangent_in_the_judges_memory_forges_no_gradient(
        adder: Problem, grade_code: GradeCode) -> None:
    """The worker reads a given cotangent into memory of its own and checks, just before the backward pass, that
    the tensor is still that memory and the memory still the judge's bytes."""
    vjp = Check(id="scaled_sum.given_vjp", title="scaled_sum's gradient for a given cotangent", group="scaled_sum",
                required=True, function=_given_vjp_check, wants_context=False)
    report = grade_code(GIVEN_COTANGENT_SHRUNK, problem=dataclasses.replace(adder, checks=(vjp,)))
    assert not report.solved
    (result,) = report.checks
    assert result.status == "failed" and result.limit == "tampering", result
    assert "the cotangent the grader made for a gradient is no longer the memory and bytes" in result.message, result


CALL_TIME_KERNEL = '''
import torch

CPU = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
guard = torch._C._dispatch_library
original = next((cell.cell_contents for cell in (guard.__closure__ or ()) if callable(cell.cell_contents)), guard)
LIBRARY = []

def private_view(self, size, stride, storage_offset=None):
    return torch.ops.aten.as_strided.default.redispatch(CPU, self, size, stride, storage_offset).clone()

def add_one(x):
    # registered inside a call: every later argument of the request would be a private copy
    LIBRARY.append(original("IMPL", "aten", "", "x.py", 1))
    LIBRARY[-1].impl("as_strided", "AutogradCPU", private_view, False)
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''

ZERO_COTANGENT = '''
import torch

guard = torch._C._dispatch_library
original = next((cell.cell_contents for cell in (guard.__closure__ or ()) if callable(cell.cell_contents)), guard)
LIBRARY = []

def zeros_instead(size, dtype=None, layout=None, device=None, pin_memory=None):
    return torch.zeros(size, dtype=dtype)

def add_one(x):
    # a request without gradients: the cotangent the grader draws for a later gradient check would be zeros,
    # and every gradient would then match the reference's
    if not LIBRARY:
        LIBRARY.append(original("IMPL", "aten", "", "x.py", 1))
        LIBRARY[-1].impl("ones", "AutogradCPU", zeros_instead, False)
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor * 7  # a wrong gradient
'''

MODE_LEFT_ON = '''
import torch
from torch.overrides import TorchFunctionMode


class Quiet(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Refused(TypeError):
    def __str__(self):
        # the grader reads an exception's message on its own thread: a mode pushed here stays on that thread
        torch._C._push_on_torch_function_stack(Quiet())
        return "factor must be a number"


def add_one(x):
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise Refused()
    return x.sum() * factor
'''


@pytest.mark.parametrize(("code", "expected"), [
    # the next request's arguments are the kernel's copies: the decoder's own check names it first
    (CALL_TIME_KERNEL, "a decoded argument is not the memory it was sent in"),
    (MODE_LEFT_ON, "a torch function mode left on"),
], ids=["kernel-in-a-call", "mode-left-on-by-an-exception-message"])
def test_torch_changed_during_a_call_fails_the_grading_and_says_how(grade_code: GradeCode, code: str,
                                                                    expected: str) -> None:
    report = grade_code(code)
    assert not report.solved
    assert any(f"changed torch for the grader too ({expected}" in message
               for message in messages(report).values()), messages(report)


def test_a_kernel_for_the_operator_that_once_drew_the_cotangent_hides_no_wrong_gradient(grade_code: GradeCode) -> None:
    """A kernel for aten::ones, registered in a call without gradients, would have zeroed the default cotangent of
    a later gradient check, and every gradient would then have matched. The worker no longer runs that operator:
    the gradient seven times too large fails as what it is, and nothing says torch was changed, since nothing
    the verdict rests on was."""
    report = grade_code(ZERO_COTANGENT)
    assert not report.solved
    failed = failing(report)
    assert "2 of 2 values differ" in failed.get("scaled_sum.gradient", ""), failed
    assert not any("changed torch" in message for message in failed.values()), failed


# A kernel registered, in a call without gradients, for one overload of an operator the worker runs on every
# request: a blob becomes a tensor of its dtype through view.dtype, and an empty argument is made by
# empty.memory_format. The kernel raises, so the worker's own operation fails, and the comparison that follows
# names the overload (a dump by the bare name `aten::fill_` would watch nothing: fill_ has only overloads).
OVERLOAD_KERNEL = '''
import torch

guard = torch._C._dispatch_library
original = next((cell.cell_contents for cell in (guard.__closure__ or ()) if callable(cell.cell_contents)), guard)
LIBRARY = []

def passthrough(*args, **kwargs):
    raise RuntimeError("never called: the grader fails the grading before it runs an operator again")

def add_one(x):
    if not LIBRARY:
        LIBRARY.append(original("IMPL", "aten", "", "x.py", 1))
        LIBRARY[-1].impl("OVERLOAD", "KEY", passthrough, False)
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


@pytest.mark.parametrize(("overload", "key"), [
    ("view.dtype", "CPU"),
    ("empty.memory_format", "CPU"),
])
def test_a_kernel_for_any_overload_of_a_worker_operator_fails_the_grading(grade_code: GradeCode, overload: str,
                                                                           key: str) -> None:
    report = grade_code(OVERLOAD_KERNEL.replace("OVERLOAD", overload).replace("KEY", key))
    assert not report.solved
    assert any(f"a kernel registered for aten::{overload}" in message for message in messages(report).values()), \
        messages(report)


@pytest.mark.parametrize(("overload", "key"), [
    ("randn.generator", "CompositeExplicitAutograd"),
    ("ones", "CPU"),
    ("resolve_conj", "CompositeExplicitAutograd"),
])
def test_a_kernel_for_an_operator_no_fact_rests_on_leaves_the_verdict_to_the_answers(
        grade_code: GradeCode, overload: str, key: str) -> None:
    """The same kernels, for operators the worker no longer runs on any request (the default cotangent is made
    without torch): every answer is still the learner's own, and a right submission is solved."""
    report = grade_code(OVERLOAD_KERNEL.replace("OVERLOAD", overload).replace("KEY", key))
    assert report.solved, messages(report)


SUBCLASS_AND_HOOK = '''
import torch


class Watcher(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


def add_one(x):
    x.__class__ = Watcher  # the caller's own tensor now runs this class's __torch_function__
    return torch.Tensor.add(x, 1).as_subclass(torch.Tensor)

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    if x.requires_grad:
        x.register_hook(lambda grad: grad)  # a hook on the caller's tensor, run by the grader's backward
    return x.sum() * factor
'''


def test_a_class_swapped_or_a_hook_registered_on_an_argument_is_a_modified_argument(grade_code: GradeCode) -> None:
    report = grade_code(SUBCLASS_AND_HOOK)
    assert not report.solved
    assert "modified its argument(s) x in place" in messages(report)["add_one.fresh_storage"]


GRADIENT_BY_HOOK = '''
import torch


def add_one(x):
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    if x.requires_grad:
        # the value is cut off the graph and a zero-weighted term keeps x in it: the hook forges the gradient
        x.register_hook(lambda grad: torch.full_like(grad, factor))
        return x.detach().sum() * factor + 0 * x.sum()
    return x.sum() * factor
'''


def test_a_gradient_a_hook_on_the_argument_forges_is_not_read(grade_code: GradeCode) -> None:
    report = grade_code(GRADIENT_BY_HOOK)
    assert not report.solved
    assert "your code changed x (its values, shape, version, requires_grad or hooks), so no gradient that reaches " \
           "it is measured" in messages(report)["scaled_sum.gradient"]
