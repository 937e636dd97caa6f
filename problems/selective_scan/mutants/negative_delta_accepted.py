"""This is what you get when a negative delta is accepted: a step size must be >= 0 (exp(delta A) would exceed 1), and the contract refuses it with ValueError.

Overrides: check_discretize_inputs
"""

_reference_check_discretize_inputs = check_discretize_inputs


def check_discretize_inputs(delta, A, B):
    floating = isinstance(delta, torch.Tensor) and delta.dtype.is_floating_point
    _reference_check_discretize_inputs(delta.abs() if floating else delta, A, B)
