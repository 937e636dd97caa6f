"""This is what you get when ffn_dim_multiplier is ignored: LLaMA 1's rule, which gives LLaMA 2 70B (d_model 8192, multiple_of 4096, multiplier 1.3) 24576 instead of 28672.

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
