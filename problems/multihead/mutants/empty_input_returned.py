"""This is what you get when an empty batch (B = 0 or L = 0) returns x itself: the values are right, but the
result is the caller's tensor rather than a new one, and writing into it writes into x.

Overrides: multi_head_attention
"""

_reference_attention = multi_head_attention


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    if x.numel() == 0:
        return x
    return _reference_attention(x, w_q, w_k, w_v, w_o, num_heads, causal)
