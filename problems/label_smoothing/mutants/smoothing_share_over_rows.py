"""This is what you get when the smoothing term divides the sum of -log p_c by logits.shape[0] (the number of
rows N) instead of the number of classes C: it is right only when N happens to equal C.

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
    uniform = -log_probs.sum(dim=1) / logits.shape[0]
    per_row = (1 - epsilon) * nll + epsilon * uniform
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return per_row.sum() / keep.sum().clamp_min(1)
