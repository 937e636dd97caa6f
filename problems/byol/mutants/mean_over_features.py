"""This is what you get when the squared error of the unit rows is averaged over the D features as well (an MSE loss).

Overrides: byol_loss
"""


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    p, z = _unit_rows(online_prediction), _unit_rows(target_projection.detach())
    return ((p - z) ** 2).mean()
