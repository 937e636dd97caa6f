"""This is what you get when the scan computes in float32 and casts back, so float64 inputs lose their precision.

Overrides: selective_scan
Source: state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py (selective_scan_ref casts u, delta, B and C with .float(): an upcast for half precision, a downcast for float64)
"""

_reference_selective_scan = selective_scan


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    args = [t if t is None else t.float() for t in (x, delta, A, B, C, D, h0)]
    y, h = _reference_selective_scan(*args)
    return y.to(x.dtype), h.to(x.dtype)
