"""Reference cross-entropy with label smoothing (Szegedy et al., 2016, section 7). The
checks compare submissions with it."""

import torch

from helpers import check_classes, check_logits_target, check_options


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    check_classes(target, num_classes, ignore_index)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)  # (N, C), stable log-softmax
    keep = target != ignore_index  # (N,)
    safe_target = torch.where(keep, target, torch.zeros_like(target))  # any valid index for ignored rows
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)  # (N,) -log p_y
    uniform = -log_probs.mean(dim=1)  # (N,) cross-entropy against the uniform eps / C share
    per_row = (1 - epsilon) * nll + epsilon * uniform  # target distribution (1 - eps) one-hot + eps / C
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    # mean over the rows that count; with none, 0 / 1 = 0.0 and a zero gradient (not 0 / 0 = NaN)
    return per_row.sum() / keep.sum().clamp_min(1)
