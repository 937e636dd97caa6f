"""This is what you get when a round of the parallel scan updates the products a before b, so b is combined with an a that already absorbed its predecessor.

Overrides: selective_scan_parallel
"""


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    a, b = A_bar, B_bar * x.unsqueeze(-1)
    length = x.shape[1]
    shift = 1
    while shift < length:
        a = torch.cat([a[:, :shift], a[:, shift:] * a[:, :-shift]], dim=1)
        b = torch.cat([b[:, :shift], a[:, shift:] * b[:, :-shift] + b[:, shift:]], dim=1)
        shift *= 2
    hs = b
    if h0 is not None:
        hs = hs + a * h0.unsqueeze(1)
    return _readout(hs, C, x, D), _last_state(hs, _initial_state(x, A, h0))
