"""This is what you get when the online prediction is detached too: nothing trains the online network.

Overrides: byol_loss
"""


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    return _per_example(_unit_rows(online_prediction.detach()), _unit_rows(target_projection.detach())).mean()
