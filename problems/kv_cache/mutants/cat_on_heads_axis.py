"""This is what you get when the cache grows along dim 1, the time axis of a [B, T, H, D] layout, which in [B, H, T, D] is the heads: the shapes only fit when T equals N, and then the heads double.

Overrides: _grow
Source: deepspeedai/Megatron-DeepSpeed PR #112 (megatron/model/transformer.py concatenated past_key with key_layer on dim 0 where the sizes allowed only dim 1)
"""

import torch


def _grow(cache_k, cache_v, k_new, v_new):
    return torch.cat([cache_k, k_new], dim=1), torch.cat([cache_v, v_new], dim=1)
