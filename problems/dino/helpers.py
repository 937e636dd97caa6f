"""DINO: the validation helpers, supplied and read-only.

`from helpers import check_center, check_number, check_same_outputs, check_views` in your solution (the starter
does)."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_views(name, views, *, exactly=None, at_least=None):
    """A list or tuple of 2-D float tensors [N, K] of one shape, dtype and device, with finite values."""
    if not isinstance(views, list | tuple):
        raise TypeError(f"{name} must be a list or tuple of tensors (one per view), got {type(views).__name__}")
    if exactly is not None and len(views) != exactly:
        raise ValueError(f"{name} must hold exactly {exactly} views, got {len(views)}")
    if at_least is not None and len(views) < at_least:
        raise ValueError(f"{name} must hold at least {at_least} views, got {len(views)}")
    for index, view in enumerate(views):
        if not isinstance(view, torch.Tensor):
            raise TypeError(f"{name}[{index}] must be a torch.Tensor, got {type(view).__name__}")
        if view.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name}[{index}] must be float32 or float64, got {view.dtype}")
    first = views[0]
    for index, view in enumerate(views):
        if view.dtype != first.dtype:
            raise TypeError(f"{name}[{index}] has dtype {view.dtype}, {name}[0] has {first.dtype}")
        if view.dim() != 2 or view.shape[0] < 1 or view.shape[1] < 1:
            raise ValueError(f"{name}[{index}] must be [N, K] with N, K >= 1, got shape {tuple(view.shape)}")
        if view.shape != first.shape:
            raise ValueError(f"{name}[{index}] has shape {tuple(view.shape)}, {name}[0] has {tuple(first.shape)}")
        if view.device != first.device:
            raise ValueError(f"{name}[{index}] is on {view.device}, {name}[0] on {first.device}")
        if not torch.isfinite(view).all():
            raise ValueError(f"{name}[{index}] must contain only finite values")


def check_center(center, views):
    """center: a 1-D float tensor [K] of the views' dtype and device, finite."""
    if not isinstance(center, torch.Tensor):
        raise TypeError(f"center must be a torch.Tensor [K], got {type(center).__name__}")
    if center.dtype != views[0].dtype:
        raise TypeError(f"center must have the outputs' dtype {views[0].dtype}, got {center.dtype}")
    if center.shape != (views[0].shape[1],):
        raise ValueError(f"center must have shape [K] = ({views[0].shape[1]},), got {tuple(center.shape)}")
    if center.device != views[0].device:
        raise ValueError(f"center must be on the outputs' device {views[0].device}, got {center.device}")
    if not torch.isfinite(center).all():
        raise ValueError("center must contain only finite values")


def check_number(name, value, *, low, high=None, low_open=True):
    """TypeError unless a Python int or float (not bool); ValueError unless finite and in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above_low = value > low if low_open else value >= low
    below_high = high is None or value <= high
    if not (math.isfinite(value) and above_low and below_high):
        upper = f" and <= {high}" if high is not None else ""
        raise ValueError(f"{name} must be finite, {'>' if low_open else '>='} {low}{upper}, got {value}")


def check_same_outputs(student_outputs, teacher_outputs):
    """The teacher's views are the student's first two crops: one dtype, one [N, K] shape."""
    student, teacher = student_outputs[0], teacher_outputs[0]
    if teacher.dtype != student.dtype:
        raise TypeError(f"teacher_outputs have dtype {teacher.dtype}, student_outputs {student.dtype}")
    if teacher.shape != student.shape:
        raise ValueError(f"teacher_outputs have shape {tuple(teacher.shape)}, student_outputs "
                         f"{tuple(student.shape)}")
