"""epsilon is not range-checked, so 1.5 or -0.1 is accepted and gives a negative target weight.

Overrides: check_options
"""


def check_options(epsilon, ignore_index):
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float):
        raise TypeError(f"epsilon must be a Python float or int, got {type(epsilon).__name__}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"ignore_index must be a Python int, got {type(ignore_index).__name__}")
