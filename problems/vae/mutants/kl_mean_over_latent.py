"""This is what you get when the KL is averaged over the latent dimensions instead of summed: it is D times too weak.

Overrides: _kl_per_example
Source: maxhodak/keras-molecules issue #59 and mkusner/grammarVAE issue #2 (K.mean(..., axis=-1) over the latent axis); also podgorskiy/VAE issue #1
"""


def _kl_per_example(mu, logvar):
    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean(dim=1)
