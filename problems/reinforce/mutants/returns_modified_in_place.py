"""This is what you get when the baseline is subtracted from the returns in place: the caller's returns tensor is changed.

Overrides: _advantage
"""


def _advantage(returns, baseline):
    advantage = returns.detach()  # shares the caller's storage
    if baseline is not None:
        advantage -= baseline.detach()
    return advantage
