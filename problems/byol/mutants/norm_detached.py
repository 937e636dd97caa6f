"""This is what you get when the row norms are computed under torch.no_grad(): the loss has the right value, but
its gradient treats each norm as a constant and keeps the component along the row that normalisation removes.

Overrides: byol_loss
"""

import torch


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    with torch.no_grad():
        norm = online_prediction.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (N, 1), a constant
    p = online_prediction / norm
    z = _unit_rows(target_projection.detach())
    return _per_example(p, z).mean()
