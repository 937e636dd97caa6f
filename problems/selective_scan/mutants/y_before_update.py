"""This is what you get when y_t is read from the state before step t's update, C_t . h_{t-1}, instead of after it.

Overrides: selective_scan
"""


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    inputs = B_bar * x.unsqueeze(-1)
    h = _initial_state(x, A, h0)
    seen = []
    for t in range(x.shape[1]):
        seen.append(h)
        h = A_bar[:, t] * h + inputs[:, t]
    hs = torch.stack(seen, dim=1) if seen else inputs
    y = (hs * C.unsqueeze(2)).sum(dim=-1)
    if D is not None:
        y = y + D * x
    return y, h.clone()
