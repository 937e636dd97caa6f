"""This is what you get when the per-row losses are written into a buffer made with torch.zeros(N), whose
default dtype is float32: float64 logits give a float32 loss.

Overrides: smoothed_cross_entropy
"""

import torch


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)
    per_row = torch.zeros(target.shape[0])
    per_row[keep] = ((1 - epsilon) * nll + epsilon * -log_probs.mean(dim=1))[keep]
    return per_row.sum() / keep.sum().clamp_min(1)
