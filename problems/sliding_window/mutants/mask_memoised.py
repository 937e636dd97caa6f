"""This is what you get when the mask is memoised (functools.lru_cache): every call with the same T and window
returns the same tensor, so a caller that edits its mask in place changes every later mask.

Overrides: sliding_window_mask
"""

import functools


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    return _cached_band(T, window)


@functools.lru_cache(maxsize=None)
def _cached_band(T, window):
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return (j <= i) & (j > i - window)
