"""This is what you get when the returns are not detached: a return that requires grad receives gradient from the loss.

Overrides: _advantage
"""


def _advantage(returns, baseline):
    if baseline is None:
        return returns
    return returns - baseline.detach()
