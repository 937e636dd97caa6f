"""Variant: a Python loop over rows with math-module arithmetic on each log-probability."""

import torch

from helpers import check_classes, check_logits_target, check_options


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    total = logits.sum() * 0.0  # a zero that keeps the graph, for batches where no row counts
    count = 0
    for row in range(logits.shape[0]):
        label = int(target[row])
        if label == ignore_index:
            continue
        z = logits[row]
        top = z.max().detach()
        log_norm = top + torch.log(torch.exp(z - top).sum())
        log_p = z - log_norm
        smooth = sum(-log_p[c] for c in range(num_classes)) / num_classes
        total = total + (1 - epsilon) * -log_p[label] + epsilon * smooth
        count += 1
    return total / max(count, 1)
