"""This is what you get when more sampling steps than training steps are accepted: the stride is 0 and every step is 0.

Overrides: check_step_counts
"""


def check_step_counts(num_train_steps, num_sampling_steps):
    if isinstance(num_train_steps, bool) or not isinstance(num_train_steps, int):
        raise TypeError("num_train_steps must be a Python int")
    if isinstance(num_sampling_steps, bool) or not isinstance(num_sampling_steps, int):
        raise TypeError("num_sampling_steps must be a Python int")
    if num_train_steps < 1 or num_sampling_steps < 1:
        raise ValueError("the step counts must be >= 1")
