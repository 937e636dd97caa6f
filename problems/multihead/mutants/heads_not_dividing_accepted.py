"""num_heads that does not divide d_model is accepted (the last features are dropped) instead of refused.

Overrides: check_options
"""


def check_options(num_heads, causal, d_model):
    if isinstance(num_heads, bool) or not isinstance(num_heads, int):
        raise TypeError(f"num_heads must be a Python int, got {type(num_heads).__name__}")
    if num_heads < 1:
        raise ValueError(f"num_heads must be >= 1, got {num_heads}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a Python bool, got {type(causal).__name__}")
