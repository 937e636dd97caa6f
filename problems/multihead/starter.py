"""Multi-head self-attention (Vaswani et al., 2017, section 3.2.2). Implement multi_head_attention below; the
helpers of helpers.py (read-only under the editor) check the contract for you."""

import torch

from helpers import check_inputs, check_options


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    """Self-attention with num_heads heads, each a contiguous slice of d_model // num_heads features.

    x: [B, L, d_model]; w_q, w_k, w_v, w_o: [d_model, d_model], applied as x @ w.T. causal: position i attends to
    j <= i. Returns [B, L, d_model].
    """
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    # 1. q, k, v = x @ w.T for each projection
    # 2. split into heads: [B, L, d_model] -> [B, L, H, d_head] -> (transpose) [B, H, L, d_head]
    # 3. per head: softmax(q k^T / sqrt(d_head)) v over the keys, with -inf above the diagonal when causal
    # 4. back to [B, L, d_model] (transpose, then reshape), then @ w_o.T
    raise NotImplementedError("multi_head_attention: follow steps 1-4 above")
