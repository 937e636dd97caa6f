"""This is what you get when times outside [0, 1] are accepted: t = 1.5 extrapolates past the data instead of raising ValueError.

Overrides: check_path_inputs
"""

_reference_check_path_inputs = check_path_inputs


def check_path_inputs(x0, x1, t, sigma_min):
    # validate everything else, with the times clamped into [0, 1] so their range is never looked at
    if isinstance(t, torch.Tensor) and t.dtype in (torch.float32, torch.float64):
        t = t.detach().clamp(0, 1)
    _reference_check_path_inputs(x0, x1, t, sigma_min)
