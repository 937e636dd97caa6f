"""This is what you get when the parallel form writes h_t = P_t * cumsum(b_s / P_s) with P_t the running product of A_bar: P_t underflows to 0 after a strongly decaying prefix and the division gives inf, then nan.

Overrides: selective_scan_parallel
Source: MzeroMiko/VMamba issue #135 (selective_scan_easy computes hs = Ats * cumsum(dtBus / Ats) with Ats = exp(A * cumsum(dt)), and training produced nan)
"""


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    _, B_bar = _discretize(delta, A, B)
    u = B_bar * x.unsqueeze(-1)
    running = torch.exp(torch.cumsum(delta.unsqueeze(-1) * A, dim=1))  # P_t = A_bar_1 ... A_bar_t
    hs = running * torch.cumsum(u / running, dim=1)
    if h0 is not None:
        hs = hs + running * h0.unsqueeze(1)
    return _readout(hs, C, x, D), _last_state(hs, _initial_state(x, A, h0))
