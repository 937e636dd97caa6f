"""This is what you get when the target u is built from x0 and x1 without detaching them, so the loss also pushes gradients into the noise and the data.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0, x1, sigma_min)
    squared = (v_pred - u) ** 2
    return squared.reshape(squared.shape[0], -1).sum(dim=1).mean()
