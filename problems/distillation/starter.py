"""Knowledge distillation. Implement distillation_loss below; the helpers of helpers.py (read-only under the editor)
check the contract for you."""

import math

import torch
import torch.nn.functional as F  # noqa: F401 - log_softmax, kl_div and cross_entropy are allowed

from helpers import check_logits, check_settings, check_target


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    """alpha * T^2 * KL(softmax(teacher / T) || softmax(student / T)) + (1 - alpha) * cross_entropy(student, target).

    student_logits, teacher_logits: [N, C]. target: int64 [N]. The KL is summed over classes and averaged over
    the N examples; the cross-entropy uses the student's logits at temperature 1. Returns a 0-d tensor.
    """
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    # 1. log-probabilities of student and teacher at temperature T (log_softmax, stable); detach the teacher
    # 2. KL(teacher || student) per example: sum over classes of p_teacher * (log p_teacher - log p_student)
    # 3. the mean over the N examples, times T^2, times alpha
    # 4. plus (1 - alpha) times the ordinary cross-entropy of the student's logits with target
    raise NotImplementedError("distillation_loss: follow steps 1-4 above")
