"""This is what you get when B_bar is exp(delta * B), discretised like A, instead of delta * B.

Overrides: _discretize
"""


def _discretize(delta, A, B):
    dt = delta.unsqueeze(-1)
    return torch.exp(dt * A), torch.exp(dt * B.unsqueeze(2))
