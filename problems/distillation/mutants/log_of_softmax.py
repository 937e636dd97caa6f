"""The log-probabilities are taken as log(softmax(.)), which gives log(0) = -inf and nan for large logits.

Overrides: distillation_loss
"""

import torch


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    p_student = torch.softmax(student_logits / t, dim=1)
    p_teacher = torch.softmax(teacher_logits.detach() / t, dim=1)
    kl = (p_teacher * (p_teacher.log() - p_student.log())).sum(dim=1).mean()
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
