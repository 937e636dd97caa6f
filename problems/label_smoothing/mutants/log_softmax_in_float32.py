"""This is what you get when the log-softmax is computed in float32 whatever the logits' dtype: float64
logits get a float64 loss that carries float32 rounding errors.

Overrides: smoothed_cross_entropy
"""

import torch


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    log_probs = torch.log_softmax(logits.float(), dim=1).to(logits.dtype)
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)
    per_row = (1 - epsilon) * nll + epsilon * -log_probs.mean(dim=1)
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return per_row.sum() / keep.sum().clamp_min(1)
