"""log p is computed as log(softmax(z)), which is log 0 = -inf as soon as a probability underflows.

Overrides: smoothed_cross_entropy
Source: https://github.com/harvardnlp/annotated-transformer/issues/39 (label smoothing on predict.log() gives an infinite loss)
"""

import torch


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    log_probs = torch.log(torch.softmax(logits, dim=1))
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)
    per_row = (1 - epsilon) * nll + epsilon * -log_probs.mean(dim=1)
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return per_row.sum() / keep.sum().clamp_min(1)
