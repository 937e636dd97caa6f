"""Knowledge distillation: the validation helpers, supplied and read-only.

`from helpers import check_logits, check_settings, check_target` in your solution."""

import math

import torch


def check_logits(student_logits, teacher_logits):
    """TypeError unless both are float32/float64 tensors of one dtype; ValueError unless they share one [N, C]
    shape (N, C >= 1) and device and are finite."""
    for name, logits in (("student_logits", student_logits), ("teacher_logits", teacher_logits)):
        if not isinstance(logits, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(logits).__name__}")
        if logits.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {logits.dtype}")
        if logits.dim() != 2:
            raise ValueError(f"{name} must be 2-D [N, C], got shape {tuple(logits.shape)}")
    if teacher_logits.dtype != student_logits.dtype:
        raise TypeError(f"teacher_logits must have the student's dtype {student_logits.dtype}, "
                        f"got {teacher_logits.dtype}")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError(f"teacher and student logits must have one shape, got {tuple(teacher_logits.shape)} and "
                         f"{tuple(student_logits.shape)}")
    if teacher_logits.device != student_logits.device:
        raise ValueError("teacher and student logits must be on one device")
    if student_logits.shape[0] < 1 or student_logits.shape[1] < 1:
        raise ValueError(f"need N >= 1 examples and C >= 1 classes, got shape {tuple(student_logits.shape)}")
    if not (torch.isfinite(student_logits).all() and torch.isfinite(teacher_logits).all()):
        raise ValueError("the logits must be finite")


def check_target(target, student_logits):
    """TypeError unless target is an int64 tensor; ValueError unless its shape is [N] and values are in [0, C)."""
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"target must be a torch.Tensor of class indices, got {type(target).__name__}")
    if target.dtype != torch.int64:
        raise TypeError(f"target must hold int64 class indices, got {target.dtype}")
    n, c = student_logits.shape
    if target.shape != (n,):
        raise ValueError(f"target must have shape [N] = ({n},), got {tuple(target.shape)}")
    if target.device != student_logits.device:
        raise ValueError("target must be on the logits' device")
    if ((target < 0) | (target >= c)).any():
        raise ValueError(f"target values must be class indices in [0, {c}), got {target.tolist()}")


def check_settings(temperature, alpha):
    """TypeError unless both are Python ints/floats (not bool); ValueError unless finite, T > 0, 0 <= alpha <= 1."""
    for name, value in (("temperature", temperature), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha weighs the two terms and must be in [0, 1], got {alpha}")
