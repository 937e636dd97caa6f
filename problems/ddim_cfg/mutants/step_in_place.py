"""This is what you get when x_t is updated in place (x_t.sub_ ...): the caller's tensor changes, and autograd cannot go through it.

Overrides: _predicted_x0
"""


def _predicted_x0(x_t, eps, alpha_bar_t):
    with torch.no_grad():
        x_t.sub_(math.sqrt(1 - alpha_bar_t) * eps).div_(math.sqrt(alpha_bar_t))
    return x_t.clone()
