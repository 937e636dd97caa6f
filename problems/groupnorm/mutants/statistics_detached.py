"""This is what you get when the mean and the variance are detached, so the gradient of x misses the path through the statistics.

Overrides: _statistics
"""


def _statistics(grouped):
    mean = grouped.mean(dim=-1, keepdim=True).detach()
    centred = grouped - mean
    var = (centred * centred).mean(dim=-1, keepdim=True).detach()
    return centred, var
