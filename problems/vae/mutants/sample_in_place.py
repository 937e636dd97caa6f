"""This is what you get when the sample is added into mu in place (mu.add_): the encoder's output is overwritten and the result aliases it.

Overrides: reparameterize
"""


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    if mu.requires_grad:
        return mu + _std(logvar) * noise
    return mu.add_(_std(logvar) * noise)
