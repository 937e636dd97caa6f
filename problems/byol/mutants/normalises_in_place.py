"""This is what you get when the inputs are normalised in place: the caller's tensors are overwritten.

Overrides: byol_loss
"""

import torch

_reference_loss = byol_loss


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    with torch.no_grad():
        target_projection.div_(target_projection.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR))
    return _reference_loss(online_prediction, target_projection)
