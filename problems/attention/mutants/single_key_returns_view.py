"""With a single key and no mask every weight is 1, so v is returned expanded over the queries: a view of v, not a new tensor.

Overrides: scaled_dot_product_attention
"""

_reference_attention = scaled_dot_product_attention


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    if mask is None and k.shape[-2] == 1:
        return v.expand(*q.shape[:-1], v.shape[-1])
    return _reference_attention(q, k, v, mask)
