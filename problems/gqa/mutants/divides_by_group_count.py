"""This is what you get when query head h reads key/value head h // G instead of h // (H / G): right only when
G = H / G, out of range or skipping heads otherwise.

Overrides: _share_kv
Source: PSAL-POSTECH/ONNXim pull request #34 (kv_head_idx = head_idx / num_kv_heads mapped GQA heads to the wrong KV heads)
"""

import torch


def _share_kv(t, num_heads):
    groups = t.shape[-3]
    index = torch.arange(num_heads, device=t.device) // groups
    return t.index_select(-3, index)
