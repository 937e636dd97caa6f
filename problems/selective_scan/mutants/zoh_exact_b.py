"""This is what you get when B_bar is the exact zero-order hold (exp(delta A) - 1) / A * B instead of Mamba's simplified delta * B.

Overrides: _discretize
Source: state-spaces/mamba issue #19 (selective_scan_ref's deltaB_u is delta * B * u, not equation 4's (delta A)^-1 (exp(delta A) - I) delta B; both conventions are in circulation)
"""


def _discretize(delta, A, B):
    dA = delta.unsqueeze(-1) * A
    A_bar = torch.exp(dA)
    B_bar = torch.expm1(dA) / A * B.unsqueeze(2)
    return A_bar, B_bar
