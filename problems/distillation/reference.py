"""Reference knowledge-distillation loss (Hinton, Vinyals & Dean, 2015)."""

import torch.nn.functional as F

from helpers import check_logits, check_settings, check_target


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    log_p_student = F.log_softmax(student_logits / t, dim=1)  # (N, C), stable at any logit size
    log_p_teacher = F.log_softmax(teacher_logits.detach() / t, dim=1)  # the teacher is a fixed target
    p_teacher = log_p_teacher.exp()  # a probability that underflows to 0 contributes 0, never 0 * -inf
    kl = (p_teacher * (log_p_teacher - log_p_student)).sum(dim=1).mean()  # KL(teacher || student), per sample
    hard = F.cross_entropy(student_logits, target)  # the true labels, at temperature 1
    return alpha * t * t * kl + (1 - alpha) * hard  # T^2 keeps the soft gradients' scale independent of T
