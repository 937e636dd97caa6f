"""Ignored rows are left out of the -log p_target term but still contribute their smoothing term.

Overrides: smoothed_cross_entropy
Source: https://github.com/pytorch/pytorch/issues/73205 (label smoothing still counted ignored samples)
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
    nll = torch.where(keep, -log_probs.gather(1, safe_target[:, None]).squeeze(1), torch.zeros_like(keep, dtype=logits.dtype))
    smooth = -log_probs.mean(dim=1)
    count = keep.sum().clamp_min(1)
    return (1 - epsilon) * nll.sum() / count + epsilon * smooth.sum() / count
