"""This is what you get when the loss is the mean over every element (F.mse_loss's default) instead of each sample's squared error summed over its features, then averaged over samples.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    return ((v_pred - u) ** 2).mean()
