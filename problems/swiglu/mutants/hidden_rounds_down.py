"""This is what you get when 8 d / 3 is rounded down to a multiple instead of up: multiple_of * (h // multiple_of), the sizes come out smaller than LLaMA's checkpoints (LLaMA 7B would get 10752, not 11008).

Source: deepspeedai/Megatron-DeepSpeed issue #184 (megatron/arguments.py set ffn_hidden_size = int((4 * h * 2 / 3) / 64) * 64, rounding down, so the official LLaMA checkpoints' shapes did not match; fixed in pull request #191)

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (hidden // multiple_of)
