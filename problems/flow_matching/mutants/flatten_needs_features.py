"""This is what you get when each sample's errors are flattened with flatten(1), which fails on data [N] that has no feature axis at all.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    return ((v_pred - u) ** 2).flatten(1).sum(dim=1).mean()
