"""This is what you get when the step counts are converted with int() instead of checked: 10.0 or True is accepted where the contract promises a TypeError.

Overrides: check_step_counts
"""

_reference_check_step_counts = check_step_counts


def check_step_counts(num_train_steps, num_sampling_steps):
    _reference_check_step_counts(int(num_train_steps), int(num_sampling_steps))
