"""This is what you get when the attention never applies the window: plain causal attention over the whole history.

Overrides: windowed_attention
Source: unslothai/unsloth PR #8253 (the sliding window never reached the SDPA path, so long sequences attended their entire causal history)
"""

import torch


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    T = q.shape[2]
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    if key_padding is not None:
        allowed = combine_with_padding(allowed, key_padding).unsqueeze(1)
    return _masked_attention(q, k, v, allowed)
