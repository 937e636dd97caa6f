"""This is what you get when the target projection is not detached inside the loss: gradient flows into the target branch.

Source: gergopool/sslic sslic/losses/byol.py (the loss leaves the stop-gradient to its caller)
Overrides: byol_loss
"""


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    return _per_example(_unit_rows(online_prediction), _unit_rows(target_projection)).mean()
