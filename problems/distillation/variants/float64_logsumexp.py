"""Variant (correct): everything in float64 with logsumexp by hand, cast back at the end."""

import torch

from helpers import check_logits, check_settings, check_target


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    dtype = student_logits.dtype
    s = student_logits.double()
    te = teacher_logits.detach().double()
    t = float(temperature)

    def log_probs(z):
        return z - torch.logsumexp(z, dim=1, keepdim=True)

    ls, lt = log_probs(s / t), log_probs(te / t)
    kl = torch.xlogy(lt.exp(), lt.exp()).sum(dim=1) - (lt.exp() * ls).sum(dim=1)  # (N,)
    hard = -log_probs(s).gather(1, target[:, None]).squeeze(1)  # (N,)
    return (alpha * t * t * kl.mean() + (1 - alpha) * hard.mean()).to(dtype)
