"""This is what you get when the loss averages the length |v - u| of each sample's error instead of its squared length.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    diff = (v_pred - u).reshape(v_pred.shape[0], -1)
    return diff.norm(dim=1).mean()
