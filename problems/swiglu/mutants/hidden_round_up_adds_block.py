"""This is what you get when rounding up always adds a block, multiple_of * (h // multiple_of + 1): a size that already is a multiple grows by one whole multiple.

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (hidden // multiple_of + 1)
