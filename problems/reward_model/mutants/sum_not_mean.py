"""This is what you get when the pair losses are summed instead of averaged: the loss, and the step size with it,
grows with the batch size.

Overrides: _mean
"""


def _mean(losses):
    return losses.sum()
