"""This is what you get when the parallel scan pads the time axis to a power of two at the front and keeps the first L positions: every output is shifted by the padding.

Overrides: selective_scan_parallel
Source: alxndrTL/mamba.py commit 6c5ff3c ("fix padding npo2": pad_npo2 padded the sequence at its start, (0, 0, 0, 0, len_npo2 - L, 0), instead of its end)
"""

import math


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    a, b = A_bar, B_bar * x.unsqueeze(-1)
    length = x.shape[1]
    padded = 1 << math.ceil(math.log2(length)) if length > 1 else length
    pad = padded - length
    if pad:
        a = torch.cat([torch.ones_like(a[:, :1]).expand(-1, pad, -1, -1), a], dim=1)
        b = torch.cat([torch.zeros_like(b[:, :1]).expand(-1, pad, -1, -1), b], dim=1)
    shift = 1
    while shift < padded:
        b = torch.cat([b[:, :shift], a[:, shift:] * b[:, :-shift] + b[:, shift:]], dim=1)
        a = torch.cat([a[:, :shift], a[:, shift:] * a[:, :-shift]], dim=1)
        shift *= 2
    hs = b[:, :length]
    if h0 is not None:
        hs = hs + a[:, :length] * h0.unsqueeze(1)
    return _readout(hs, C, x, D), _last_state(hs, _initial_state(x, A, h0))
