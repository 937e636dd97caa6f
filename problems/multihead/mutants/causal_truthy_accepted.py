"""causal accepts any truthy value (1, "yes") instead of only a bool.

Overrides: check_options
"""


def check_options(num_heads, causal, d_model):
    if isinstance(num_heads, bool) or not isinstance(num_heads, int):
        raise TypeError(f"num_heads must be a Python int, got {type(num_heads).__name__}")
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"num_heads must be >= 1 and divide d_model = {d_model}, got {num_heads}")
