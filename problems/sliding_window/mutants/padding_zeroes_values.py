"""This is what you get when padding zeroes the padded values instead of removing those keys from the softmax.

Overrides: windowed_attention
"""


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    T = q.shape[2]
    allowed = sliding_window_mask(T, window).to(q.device)
    if key_padding is not None:
        v = v * key_padding[:, None, :, None].to(v.dtype)
    return _masked_attention(q, k, v, allowed)
