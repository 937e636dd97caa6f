"""This is what you get when momentum weights the new batch mean instead of the old baseline (PyTorch BatchNorm's convention, not this one).

Overrides: update_baseline
"""


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    baseline, returns = baseline.detach(), returns.detach()
    if returns.numel() == 0:
        return baseline.clone()
    return (1 - momentum) * baseline + momentum * returns.mean()
