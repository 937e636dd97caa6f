"""The logits are divided by the temperature in place, modifying the caller's tensors.

Overrides: distillation_loss
"""

import torch


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    with torch.no_grad():
        teacher_logits.div_(t)
    log_p_teacher = F.log_softmax(teacher_logits.detach(), dim=1)
    log_p_student = F.log_softmax(student_logits / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=1).mean()
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
