"""Variant (correct): a loop over the examples, each one's KL and cross-entropy on its own."""

import torch

from helpers import check_logits, check_settings, check_target


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    n = student_logits.shape[0]
    total = student_logits.new_zeros(())
    for i in range(n):
        ls = torch.log_softmax(student_logits[i] / t, dim=0)  # (C,)
        lt = torch.log_softmax(teacher_logits[i].detach() / t, dim=0)
        kl = torch.sum(torch.exp(lt) * (lt - ls))
        hard = -torch.log_softmax(student_logits[i], dim=0)[target[i]]
        total = total + alpha * t * t * kl + (1 - alpha) * hard
    return total / n
