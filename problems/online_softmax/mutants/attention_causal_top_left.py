"""This is what you get when the causal mask is aligned to the first key (query i sees keys 0..i) instead of the last (keys 0..i + Lk - Lq): with a cache, every query loses the most recent keys it should see.

Source: gittensor-ai-lab/sparkinfer issue #3 (flash_prefill's causal mask caps query qpos at key qpos, ignoring the seqlen_kv - seqlen_q cached keys); Dao-AILab/flash-attention issue #402 (causal attention when seqlen_q != seqlen_k)

Overrides: _allowed
"""

import torch


def _allowed(lq, lk, start, stop, device):
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(start, stop, device=device)[None, :]
    return j <= i
