"""This is what you get when an empty batch of returns hands the baseline straight back: the value is right, but the result is the caller's own tensor (still requiring grad if it did), not a new one.

Overrides: update_baseline
"""


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    if returns.numel() == 0:
        return baseline  # nothing to average: keep the old value
    return momentum * baseline.detach() + (1 - momentum) * returns.detach().mean()
