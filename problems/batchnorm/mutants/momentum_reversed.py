"""momentum weighs the old running statistics (the Keras convention) instead of the new batch.

Overrides: batch_norm_train
Source: keras-team/keras keras/src/layers/normalization/batch_normalization.py (moving = moving * momentum + batch * (1 - momentum))
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]
    if count < 2:
        raise ValueError("one value per channel")
    dims = _reduced_dims(x)
    mean, centred = _centre(x, dims)
    var = (centred * centred).mean(dim=dims)
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():
        unbiased = var.detach() * count / (count - 1)
        new_mean = momentum * running_mean + (1 - momentum) * mean.detach()
        new_var = momentum * running_var + (1 - momentum) * unbiased
    return y, new_mean, new_var
