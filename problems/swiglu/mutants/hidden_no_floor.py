"""This is what you get when 8 d / 3 is not floored before rounding up, ceil((8 d / 3) / multiple_of): when the floor is already a multiple, the fraction pushes the size up one whole multiple.

Overrides: llama_hidden_dim
"""

import math


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = 2 * 4 * d_model / 3
    if ffn_dim_multiplier is not None:
        hidden = ffn_dim_multiplier * hidden
    return multiple_of * math.ceil(hidden / multiple_of)
