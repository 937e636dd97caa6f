"""This is what you get when the parallel scan folds h0 into the first input as b_1 + h0 instead of b_1 + A_bar_1 h0: the start state skips its first decay.

Overrides: selective_scan_parallel
"""

_reference_parallel = selective_scan_parallel


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    if h0 is None or x.shape[1] == 0:
        return _reference_parallel(x, delta, A, B, C, D, h0)
    # the start state enters as an extra input at step 1, where x_1 B_bar_1 would give it no decay
    A_bar, B_bar = _discretize(delta, A, B)
    a, b = A_bar, B_bar * x.unsqueeze(-1)
    b = torch.cat([b[:, :1] + h0.unsqueeze(1), b[:, 1:]], dim=1)
    length = x.shape[1]
    shift = 1
    while shift < length:
        b = torch.cat([b[:, :shift], a[:, shift:] * b[:, :-shift] + b[:, shift:]], dim=1)
        a = torch.cat([a[:, :shift], a[:, shift:] * a[:, :-shift]], dim=1)
        shift *= 2
    return _readout(b, C, x, D), _last_state(b, h0)
