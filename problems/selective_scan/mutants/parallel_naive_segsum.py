"""This is what you get when the parallel form takes each segment sum as a difference of two running sums, S_t - S_s: in float32 those differences lose their digits once the running sum is large.

Overrides: selective_scan_parallel
Source: state-spaces/mamba mamba_ssm/modules/ssd_minimal.py (segsum_unstable, the naive segment sum x_cumsum[..., :, None] - x_cumsum[..., None, :], kept beside the stable segsum)
"""


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    dA = delta.unsqueeze(-1) * A  # [batch, L, D, N]
    _, B_bar = _discretize(delta, A, B)
    u = B_bar * x.unsqueeze(-1)
    length = x.shape[1]
    running = torch.cumsum(dA, dim=1)  # S_t
    segment = running.unsqueeze(2) - running.unsqueeze(1)  # [batch, t, s, D, N]: S_t - S_s
    causal = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
    weights = torch.where(causal[None, :, :, None, None], torch.exp(segment.clamp(max=0)),
                          torch.zeros_like(segment))
    hs = (weights * u.unsqueeze(1)).sum(dim=2)
    if h0 is not None:
        hs = hs + torch.exp(running) * h0.unsqueeze(1)
    return _readout(hs, C, x, D), _last_state(hs, _initial_state(x, A, h0))
