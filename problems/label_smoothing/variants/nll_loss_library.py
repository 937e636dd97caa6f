"""Variant: torch.nn.functional.log_softmax and nll_loss (sum, ignore_index) plus a masked smoothing term."""

import torch

from helpers import check_classes, check_logits_target, check_options


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    log_probs = torch.nn.functional.log_softmax(logits, dim=1)
    keep = target != ignore_index
    nll_sum = torch.nn.functional.nll_loss(log_probs, target, ignore_index=ignore_index, reduction="sum")
    smooth_sum = (-log_probs.mean(dim=1) * keep).sum()
    count = max(int(keep.sum()), 1)
    return ((1 - epsilon) * nll_sum + epsilon * smooth_sum) / count
