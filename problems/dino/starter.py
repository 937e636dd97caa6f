"""DINO (Caron et al., 2021). Implement dino_loss and update_center below; the helpers of helpers.py (read-only
under the editor) check the contract for you."""

import math

import torch
import torch.nn.functional as F  # noqa: F401 - softmax and log_softmax are allowed

from helpers import check_center, check_number, check_same_outputs, check_views


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    """Mean over the pairs (teacher view i, student view j), j != i, of the cross-entropy from
    softmax((t_i - center) / teacher_temperature) to log_softmax(s_j / student_temperature).

    student_outputs: V >= 2 tensors [N, K] (the first two are the teacher's crops); teacher_outputs: 2 tensors
    [N, K]; center: [K]. Returns a 0-d tensor; no gradient may reach the teacher or the centre.
    """
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    # 1. teacher targets: centred, sharpened, softmax over K, detached
    # 2. student log-probabilities at the student temperature (a stable log-softmax)
    # 3. cross-entropy (sum over K, mean over N) for every pair i != j, then the mean over the pairs
    raise NotImplementedError("dino_loss: follow steps 1-3 above")


def update_center(center, teacher_outputs, momentum=0.9):
    """momentum * center + (1 - momentum) * the mean over all rows of both teacher views; a new, detached [K]."""
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    raise NotImplementedError("update_center: a moving average of the mean teacher output, without gradient")
