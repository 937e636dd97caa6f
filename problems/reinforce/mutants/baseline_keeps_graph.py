"""This is what you get when the moving average is computed without detaching: a baseline or returns that require grad give a result that requires grad (and keeps the whole history's graph alive).

Overrides: update_baseline
"""


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    if returns.numel() == 0:
        return baseline.clone()
    return momentum * baseline + (1 - momentum) * returns.mean()
