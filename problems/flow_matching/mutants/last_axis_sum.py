"""This is what you get when the squared errors are summed over the last axis only and then averaged over everything else, so images [N, C, H, W] lose a factor C * H.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    squared = (v_pred - u) ** 2
    if squared.dim() == 1:
        return squared.mean()
    return squared.sum(dim=-1).mean()
