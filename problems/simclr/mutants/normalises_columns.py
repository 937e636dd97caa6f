"""This is what you get when each feature column (dim=0) is normalised instead of each row.

Overrides: _unit_rows
Source: tensorflow/similarity issue #237 (SimCLRLoss normalised over the batch as well as the features)
"""


def _unit_rows(z):
    return z / z.norm(dim=0, keepdim=True).clamp_min(NORM_FLOOR)
