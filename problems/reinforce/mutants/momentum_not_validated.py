"""This is what you get when momentum is never checked: a bool, or a momentum outside [0, 1] that extrapolates past the batch mean, is accepted.

Overrides: check_baseline_inputs
"""

_reference_check_baseline_inputs = check_baseline_inputs


def check_baseline_inputs(baseline, returns, momentum):
    _reference_check_baseline_inputs(baseline, returns, 0.5)
