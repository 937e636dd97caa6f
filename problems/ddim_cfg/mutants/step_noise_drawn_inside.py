"""This is what you get when a missing noise is drawn inside the step (torch.randn_like) instead of refused: the step must be reproducible from its arguments.

Overrides: ddim_step
"""

_reference_ddim_step = ddim_step


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    if noise is None and isinstance(x_t, torch.Tensor):
        noise = torch.randn_like(x_t)
    return _reference_ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
