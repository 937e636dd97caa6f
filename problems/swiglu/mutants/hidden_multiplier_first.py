"""This is what you get when ffn_dim_multiplier is applied to 4 d_model before the 2/3 rather than after it: the two truncations fall in other places and some sizes differ.

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = 4 * d_model
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    hidden = int(2 * hidden / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
