"""This is what you get when an empty batch of returns gives back baseline.detach(): a new tensor object that no longer requires grad, but over the caller's own memory, so changing one changes the other.

Overrides: update_baseline
"""


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    baseline, returns = baseline.detach(), returns.detach()
    if returns.numel() == 0:
        return baseline  # detached already, so it looked like a new tensor
    return momentum * baseline + (1 - momentum) * returns.mean()
