"""This is what you get when Lk < Lq is not refused: there is then no position P + i for the queries, and causal attention leaves the first queries with no key at all.

Overrides: check_attention_inputs
"""

_reference_check_attention_inputs = check_attention_inputs


def check_attention_inputs(q, k, v, block_size, causal):
    if hasattr(q, "shape") and hasattr(k, "shape") and q.dim() >= 2 and k.dim() >= 2 and k.shape[-2] < q.shape[-2]:
        q = q[..., : k.shape[-2], :]
    _reference_check_attention_inputs(q, k, v, block_size, causal)
