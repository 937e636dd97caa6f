"""This is what you get when an empty batch is not refused: a mean over zero samples has no value, and the code fails (or returns nan) instead of raising ValueError.

Overrides: check_loss_inputs
"""

_reference_check_loss_inputs = check_loss_inputs


def check_loss_inputs(v_pred, x0, x1, sigma_min):
    if isinstance(x0, torch.Tensor) and x0.dim() >= 1 and x0.shape[0] == 0:
        return
    _reference_check_loss_inputs(v_pred, x0, x1, sigma_min)
