"""This is what you get when the sequential scan always starts from zeros and ignores the h0 it is given.

Overrides: selective_scan
"""

_reference_selective_scan = selective_scan


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    y, h = _reference_selective_scan(x, delta, A, B, C, D, None)
    if h0 is not None and x.shape[1] == 0:
        h = h0.clone()
    return y, h
