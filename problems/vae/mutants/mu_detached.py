"""This is what you get when the sample is built from mu.detach(): the value is right, but no gradient reaches mu through z.

Overrides: reparameterize
"""


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    return mu.detach() + _std(logvar) * noise
