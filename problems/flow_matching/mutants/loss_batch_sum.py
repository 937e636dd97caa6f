"""This is what you get when the squared errors are summed over the batch as well, instead of averaged over the N samples.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    return ((v_pred - u) ** 2).sum()
