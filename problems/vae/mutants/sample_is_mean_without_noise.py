"""This is what you get when a sample with no noise returns mu itself (the shortcut VAEs take at evaluation time): the caller's z is then the encoder's own tensor, so writing into z (z.clamp_(...), z += ...) silently changes mu whenever the noise happens to be all zeros.

Overrides: reparameterize
Source: JanLucasK/Ground-Truth-Function-Optimization-Machine-Learning-Project, src/VAE.py (reparameterize returns z_mu itself outside training)
"""


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    if not noise.any():
        return mu  # no noise: the sample is the mean
    return mu + _std(logvar) * noise
