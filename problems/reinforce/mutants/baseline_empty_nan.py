"""This is what you get when an empty batch of returns is averaged anyway: its mean is nan, and so is the new baseline.

Overrides: update_baseline
"""


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    return momentum * baseline.detach() + (1 - momentum) * returns.detach().mean()
