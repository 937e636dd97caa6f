"""This is what you get when one tensor passed as both arguments is short-cut to a loss of 0: the value is
right (every cosine is 1), but the fresh zero is cut from online_prediction's graph and does not require grad.

Overrides: byol_loss
"""

_reference_loss = byol_loss


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    if online_prediction is target_projection:
        return online_prediction.new_zeros(())
    return _reference_loss(online_prediction, target_projection)
