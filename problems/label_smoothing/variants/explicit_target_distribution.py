"""Variant: build the smoothed target q row by row, then -(q * log p).sum(1); all in float64, cast back."""

import torch

from helpers import check_classes, check_logits_target, check_options


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    z = logits.double()
    log_probs = z - torch.logsumexp(z, dim=1, keepdim=True)
    keep = target != ignore_index
    q = torch.full_like(z, epsilon / num_classes)
    rows = torch.arange(z.shape[0])[keep]
    q[rows, target[keep]] += 1 - epsilon
    q = q * keep[:, None]  # ignored rows have no target at all
    total = -(q * log_probs).sum()
    return (total / max(int(keep.sum()), 1)).to(logits.dtype)
