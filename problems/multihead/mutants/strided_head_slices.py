"""Head j takes every H-th feature (j, j + H, ...) instead of a contiguous slice.

Overrides: _split_heads
"""


def _split_heads(t, num_heads):
    batch, length, d_model = t.shape
    return t.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 3, 1, 2)
