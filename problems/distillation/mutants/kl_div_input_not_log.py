"""F.kl_div is given the student's probabilities instead of its log-probabilities as input.

Overrides: distillation_loss
Source: https://github.com/microsoft/ProDA/issues/20 (F.kl_div(student, teacher) with student a softmax, not a log_softmax)
"""

import torch


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    kl = F.kl_div(torch.softmax(student_logits / t, dim=1), F.softmax(teacher_logits.detach() / t, dim=1),
                  reduction="batchmean")
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
