"""Variant: one row at a time in a Python loop; the average as a clone updated in place."""

import torch

from helpers import check_batches, check_pair, check_tau

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    target = target_projection.detach()
    total = 0
    for i in range(online_prediction.shape[0]):
        p = online_prediction[i]
        z = target[i]
        cos = (p * z).sum() / (p.norm().clamp_min(1e-12) * z.norm().clamp_min(1e-12))
        total = total + (2 - 2 * cos)
    return total / online_prediction.shape[0]


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        new = target_params.detach().clone()
        new.mul_(tau)
        new.add_(online_params.detach(), alpha=1 - tau)
        return new
