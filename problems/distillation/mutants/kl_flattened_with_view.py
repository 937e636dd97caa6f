"""The log-probabilities are written out with logsumexp (which keeps the logits' strides) and flattened with
.view(-1) for one summed kl_div: right on contiguous logits, a RuntimeError on transposed ones, which need
.reshape(-1).

Overrides: distillation_loss
Source: bearpaw/pytorch-classification issue #53 (.view(-1) on a non-contiguous tensor; .reshape(-1) fixes it)
"""

import torch


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    s, te = student_logits / t, teacher_logits.detach() / t  # (N, C), the inputs' strides
    log_p_student = s - torch.logsumexp(s, dim=1, keepdim=True)
    log_p_teacher = te - torch.logsumexp(te, dim=1, keepdim=True)
    n = student_logits.shape[0]
    kl = F.kl_div(log_p_student.view(-1), log_p_teacher.view(-1), reduction="sum", log_target=True) / n
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
