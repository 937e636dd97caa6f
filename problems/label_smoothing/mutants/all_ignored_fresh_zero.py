"""This is what you get when a batch with no row that counts returns a new torch.zeros(()) instead of a zero
computed from the logits: the value is right, but the loss leaves the autograd graph and backward() fails.

Overrides: smoothed_cross_entropy
"""

import torch


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    keep = target != ignore_index
    if not bool(keep.any()):
        return torch.zeros((), dtype=logits.dtype, device=logits.device)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)
    per_row = (1 - epsilon) * nll + epsilon * -log_probs.mean(dim=1)
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return per_row.sum() / keep.sum()
