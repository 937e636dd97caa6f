"""This is what you get when the per-row losses are summed over the batch instead of averaged.

Source: open-mmlab/mmselfsup#118 (a BYOL head questioned for summing over every element instead of averaging per sample)
Overrides: byol_loss
"""


def byol_loss(online_prediction, target_projection):
    check_batches(online_prediction, target_projection)
    return _per_example(_unit_rows(online_prediction), _unit_rows(target_projection.detach())).sum()
