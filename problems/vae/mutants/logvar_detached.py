"""This is what you get when the standard deviation is computed from logvar.detach(): the encoder's variance head never learns from the reconstruction.

Overrides: reparameterize
"""


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    return mu + _std(logvar.detach()) * noise
