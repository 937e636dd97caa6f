"""This is what you get when the true logits are picked from logits.view(-1) with flat indices row * C + y:
.view needs contiguous logits, so a transposed or sliced batch raises instead of giving the loss.

Source: allenai/allennlp PR #942 (sequence_cross_entropy_with_logits flattens its inputs with .view)
Overrides: smoothed_cross_entropy
"""

import torch


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_rows, num_classes = logits.shape
    check_classes(target, num_classes, ignore_index)
    log_norm = torch.logsumexp(logits, dim=1)  # (N,)
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    true_logit = logits.view(-1)[torch.arange(num_rows) * num_classes + safe_target]  # (N,)
    nll = log_norm - true_logit
    uniform = log_norm - logits.mean(dim=1)
    per_row = (1 - epsilon) * nll + epsilon * uniform
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return per_row.sum() / keep.sum().clamp_min(1)
