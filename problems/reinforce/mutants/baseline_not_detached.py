"""This is what you get when the baseline is subtracted without detaching it: the loss sends gradient into the baseline (pushing it to cancel the returns).

Source: ChenRocks/fast_abs_rl issue #49 (the baseline b in r - b still required grad, so the policy loss also
trained the critic; fixed with (r - b).item())
Overrides: _advantage
"""


def _advantage(returns, baseline):
    if baseline is None:
        return returns.detach()
    return returns.detach() - baseline
