"""This is what you get when a window of 0 (or less) is accepted and silently masks every key, instead of raising ValueError.

Overrides: check_length_and_window, check_attention_inputs
"""

_reference_check_attention_inputs = check_attention_inputs


def check_length_and_window(T, window):
    if isinstance(T, bool) or not isinstance(T, int) or isinstance(window, bool) or not isinstance(window, int):
        raise TypeError("T and window must be Python ints")
    if T < 0:
        raise ValueError(f"T must be >= 0, got {T}")


def check_attention_inputs(q, k, v, window, key_padding=None):
    _reference_check_attention_inputs(q, k, v, max(window, 1) if isinstance(window, int) else window, key_padding)
