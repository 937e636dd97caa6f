"""Reference BYOL loss and target update (Grill et al., 2020). The checks compare
submissions with it."""

import torch

from helpers import check_batches, check_pair, check_tau

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def _unit_rows(x):
    """Each row divided by max(its L2 norm, NORM_FLOOR)."""
    return x / x.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (N, D) / (N, 1)


def _per_example(p, z):
    """2 - 2 cos(p_i, z_i) for every row: the squared distance between the two unit vectors."""
    return 2 - 2 * (p * z).sum(dim=1)  # (N,)


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    p = _unit_rows(online_prediction)
    z = _unit_rows(target_projection.detach())  # stop-gradient: the target is a regression target, not trained
    return _per_example(p, z).mean()  # mean over the batch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():  # the target network is never trained by gradient; the result is new storage
        return tau * target_params.detach() + (1 - tau) * online_params.detach()
