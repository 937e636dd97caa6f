"""This is what you get when the hidden size keeps the ReLU block's 4 d_model without the 2/3: three matrices of that width cost 1.5 times the parameters the paper's comparison holds fixed (LLaMA 7B would get 16384, not 11008).

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = 4 * d_model
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
