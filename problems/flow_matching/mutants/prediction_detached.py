"""This is what you get when the loss is computed from v_pred.detach() (or under no_grad), so no gradient reaches the model.

Overrides: cfm_loss
"""


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)
    squared = (v_pred.detach() - u) ** 2
    return squared.reshape(squared.shape[0], -1).sum(dim=1).mean()
