"""Reference DINO loss and centre update (Caron et al., 2021). Hidden from learners; the checks compare submissions
with it."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_views(name, views, *, exactly=None, at_least=None):
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


def _check_center(center, views):
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


def _check_number(name, value, *, low, high=None, low_open=True):
    """TypeError unless a Python int or float (not bool); ValueError unless finite and in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above_low = value > low if low_open else value >= low
    below_high = high is None or value <= high
    if not (math.isfinite(value) and above_low and below_high):
        upper = f" and <= {high}" if high is not None else ""
        raise ValueError(f"{name} must be finite, {'>' if low_open else '>='} {low}{upper}, got {value}")


def _check_same_outputs(student_outputs, teacher_outputs):
    """The teacher's views are the student's first two crops: one dtype, one [N, K] shape."""
    student, teacher = student_outputs[0], teacher_outputs[0]
    if teacher.dtype != student.dtype:
        raise TypeError(f"teacher_outputs have dtype {teacher.dtype}, student_outputs {student.dtype}")
    if teacher.shape != student.shape:
        raise ValueError(f"teacher_outputs have shape {tuple(teacher.shape)}, student_outputs "
                         f"{tuple(student.shape)}")


def _teacher_probabilities(teacher_outputs, center, teacher_temperature):
    """softmax((t - center) / tau_t) of each teacher view, detached: the teacher is a target, not trained here."""
    return [torch.softmax((t.detach() - center.detach()) / teacher_temperature, dim=-1) for t in teacher_outputs]


def _student_log_probabilities(student_outputs, student_temperature):
    return [torch.log_softmax(s / student_temperature, dim=-1) for s in student_outputs]  # stable at any scale


def _pairs(num_teacher, num_student):
    """(teacher view i, student view j) for every i != j: the same global crop is never its own target."""
    return [(i, j) for i in range(num_teacher) for j in range(num_student) if i != j]


def _cross_entropy(p, log_q):
    return -(p * log_q).sum(dim=-1).mean()  # (N, K) -> (N,) -> (): summed over K, averaged over the batch


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    _check_views("student_outputs", student_outputs, at_least=2)
    _check_views("teacher_outputs", teacher_outputs, exactly=2)
    _check_same_outputs(student_outputs, teacher_outputs)
    _check_center(center, teacher_outputs)
    _check_number("student_temperature", student_temperature, low=0)
    _check_number("teacher_temperature", teacher_temperature, low=0)
    targets = _teacher_probabilities(teacher_outputs, center, teacher_temperature)
    predictions = _student_log_probabilities(student_outputs, student_temperature)
    pairs = _pairs(len(targets), len(predictions))
    return sum(_cross_entropy(targets[i], predictions[j]) for i, j in pairs) / len(pairs)


def _batch_center(teacher_outputs):
    return torch.cat([t.detach() for t in teacher_outputs]).mean(dim=0)  # (2N, K) -> (K,): every teacher row


def update_center(center, teacher_outputs, momentum=0.9):
    _check_views("teacher_outputs", teacher_outputs, exactly=2)
    _check_center(center, teacher_outputs)
    _check_number("momentum", momentum, low=0, high=1, low_open=False)
    return momentum * center.detach() + (1 - momentum) * _batch_center(teacher_outputs)
