"""This is what you get when the loss is losses.mean(): on an empty batch that is 0 / 0 = nan, and one nan
ruins the weights.

Overrides: _mean
"""


def _mean(losses):
    return losses.mean()
