"""This is what you get when the input term drops delta: B_bar = B instead of delta * B.

Overrides: _discretize
Source: state-spaces/mamba issue #551 (dropping dt from the input term of chunk_scan_ref was proposed; the thread concludes the factor is the delta of B_bar = delta B)
"""


def _discretize(delta, A, B):
    dt = delta.unsqueeze(-1)
    return torch.exp(dt * A), B.unsqueeze(2).expand(*dt.shape[:3], B.shape[-1]).clone()
