"""Variant: F.normalize and a row-wise dot product; torch.lerp for the moving average."""

import torch
import torch.nn.functional as F

from helpers import check_batches, check_pair, check_tau

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    p = F.normalize(online_prediction, dim=1, eps=1e-12)
    z = F.normalize(target_projection, dim=1, eps=1e-12).detach()
    return (2 - 2 * (p * z).sum(dim=1)).mean()


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        return torch.lerp(target_params, online_params, 1.0 - tau)
