"""Variant: computes in float64 with einsum and casts back; the average on detached float64 copies."""

import torch

from helpers import check_batches, check_pair, check_tau

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    p = online_prediction.double()
    z = target_projection.detach().double()
    dots = torch.einsum("nd,nd->n", p, z)
    norms = torch.linalg.vector_norm(p, dim=1).clamp_min(1e-12) * torch.linalg.vector_norm(z, dim=1).clamp_min(1e-12)
    return (2 - 2 * dots / norms).mean().to(online_prediction.dtype)


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    online = online_params.detach().double()
    target = target_params.detach().double()
    return (tau * target + (1 - tau) * online).to(online_params.dtype)
