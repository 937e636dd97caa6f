"""This is what you get when n_steps is not validated: n_steps = 0 divides by zero (ZeroDivisionError) and n_steps = True runs one step, instead of the ValueError and TypeError the contract promises.

Overrides: check_sampler_inputs
"""

_reference_check_sampler_inputs = check_sampler_inputs


def check_sampler_inputs(x0, means, sigma, n_steps):
    if isinstance(n_steps, int) and n_steps <= 0 or isinstance(n_steps, bool):
        return
    _reference_check_sampler_inputs(x0, means, sigma, n_steps)
