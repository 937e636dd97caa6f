"""This is what you get when the sample is drawn without gradient (torch.normal, or under torch.no_grad()): neither mu nor logvar is trained through z.

Overrides: reparameterize
"""

import torch


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    with torch.no_grad():
        return mu + _std(logvar) * noise
