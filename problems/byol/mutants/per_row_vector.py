"""This is what you get when the per-row losses are returned without the mean over the batch: an [N] vector.

Source: park-cheol/Self_Supervised-BYOL utils/losses.py (the regression loss returns one value per sample)
Overrides: byol_loss
"""


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    return _per_example(_unit_rows(online_prediction), _unit_rows(target_projection.detach()))
