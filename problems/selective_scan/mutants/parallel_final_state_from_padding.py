"""This is what you get when the parallel scan pads to a power of two with A_bar = 0 and reads h_last at the end of the padding: y is right, but the final state of any other length is 0.

Overrides: selective_scan_parallel
Source: state-spaces/mamba issue #368 (in the selective scan backward kernel, positions past the sequence length must be identity steps with exp(delta A) = 1; with delta_softplus or delta_bias they were not)
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
        a = torch.cat([a, torch.zeros_like(a[:, :1]).expand(-1, pad, -1, -1)], dim=1)
        b = torch.cat([b, torch.zeros_like(b[:, :1]).expand(-1, pad, -1, -1)], dim=1)
    shift = 1
    while shift < padded:
        b = torch.cat([b[:, :shift], a[:, shift:] * b[:, :-shift] + b[:, shift:]], dim=1)
        a = torch.cat([a[:, :shift], a[:, shift:] * a[:, :-shift]], dim=1)
        shift *= 2
    hs = b
    if h0 is not None:
        hs = hs + a * h0.unsqueeze(1)
    return _readout(hs[:, :length], C, x, D), _last_state(hs, _initial_state(x, A, h0))
