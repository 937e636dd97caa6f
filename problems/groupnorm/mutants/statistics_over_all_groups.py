"""This is what you get when the statistics are reduced over the group axis too, so every group of a sample shares one mean and variance: LayerNorm whatever num_groups is.

Source: brainpy/BrainPy issue #765 ("Groupnorm implementation error": GroupNorm.update in
brainpy/_src/dnn/normalization.py includes the group axis in its reduction axes).

Overrides: _statistics
"""


def _statistics(grouped):
    mean = grouped.mean(dim=(1, 2), keepdim=True)
    centred = grouped - mean
    var = (centred * centred).mean(dim=(1, 2), keepdim=True)
    return centred, var
