"""This is what you get when the multiplied size is not truncated with int(): ffn_dim_multiplier * h is a float, floor division keeps it a float, and the size comes back as 28672.0, which nn.Linear refuses as a width.

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3
    if ffn_dim_multiplier is not None:
        hidden = ffn_dim_multiplier * hidden
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
