"""This is what you get when a loop over the batch rows forgets to reset the state: each row starts from the previous row's final state.

Overrides: selective_scan
"""


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    inputs = B_bar * x.unsqueeze(-1)
    start = _initial_state(x, A, h0)
    ys, finals = [], []
    h = start[0] if x.shape[0] else None
    for b in range(x.shape[0]):
        states = []
        for t in range(x.shape[1]):
            h = A_bar[b, t] * h + inputs[b, t]
            states.append(h)
        hs = torch.stack(states) if states else inputs[b]
        ys.append((hs * C[b].unsqueeze(1)).sum(dim=-1))
        finals.append(h.clone())
    if not ys:
        return _readout(inputs, C, x, D), start.clone()
    y = torch.stack(ys)
    if D is not None:
        y = y + D * x
    return y, torch.stack(finals)
