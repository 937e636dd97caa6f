"""This is what you get when only logvar's shape is compared with mu's: a noise of another shape is broadcast, so one noise row is shared by the whole batch (or a batch of noise silently widens a single mu) instead of being refused.

Overrides: reparameterize
"""


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape:
        raise ValueError("mu and logvar must have one shape")
    return mu + _std(logvar) * noise
