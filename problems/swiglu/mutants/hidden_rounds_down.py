"""This is what you get when 8 d / 3 is rounded down to a multiple instead of up: multiple_of * (h // multiple_of), the sizes come out smaller than LLaMA's checkpoints (LLaMA 7B would get 10752, not 11008).

Source: epfLLM/Megatron-LLM issue #64 (quotes Megatron-DeepSpeed's arguments.py: ffn_hidden_size = int((4 * hidden_size * 2 / 3) / 64) * 64, rounded down, and a checkpoint whose size did not match)

Overrides: llama_hidden_dim
"""


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (hidden // multiple_of)
