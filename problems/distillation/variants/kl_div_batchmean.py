"""Variant (correct): F.kl_div with reduction="batchmean" and F.cross_entropy."""

import torch.nn.functional as F

from helpers import check_logits, check_settings, check_target


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    soft = F.kl_div(F.log_softmax(student_logits / t, dim=1), F.log_softmax(teacher_logits.detach() / t, dim=1),
                    reduction="batchmean", log_target=True)
    return alpha * t**2 * soft + (1 - alpha) * F.cross_entropy(student_logits, target)
