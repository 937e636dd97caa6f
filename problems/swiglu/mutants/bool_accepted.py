"""This is what you get when d_model and multiple_of are validated with isinstance(value, int) alone: True passes as 1, since bool is a subclass of int.

Overrides: check_hidden_dim_args
"""

import math


def check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier):
    for name, value in (("d_model", d_model), ("multiple_of", multiple_of)):
        if not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if ffn_dim_multiplier is None:
        return
    if isinstance(ffn_dim_multiplier, bool) or not isinstance(ffn_dim_multiplier, int | float):
        raise TypeError("ffn_dim_multiplier must be None or a Python float")
    if not math.isfinite(ffn_dim_multiplier) or ffn_dim_multiplier <= 0:
        raise ValueError("ffn_dim_multiplier must be a finite number > 0")
