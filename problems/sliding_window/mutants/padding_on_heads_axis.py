"""This is what you get when the padding [B, T] is broadcast as [B, 1, T] against [B, H, T, T]: it lands on the heads axis.

Overrides: windowed_attention
"""


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    T = q.shape[2]
    allowed = sliding_window_mask(T, window).to(q.device)
    if key_padding is not None:
        allowed = allowed & key_padding[:, None, :]  # [B, T, T], read by the scores as [H, T, T]
    return _masked_attention(q, k, v, allowed)
