"""Variational autoencoder (Kingma & Welling, 2014). Implement reparameterize, gaussian_kl and elbo_loss below; the
helpers of helpers.py (read-only under the editor) check the contract for you."""

import torch
import torch.nn.functional as F  # noqa: F401 - binary_cross_entropy_with_logits is allowed (and stable)

from helpers import check_data, check_latent, check_tensors


def reparameterize(mu, logvar, noise):
    """z = mu + exp(logvar / 2) * noise, elementwise.

    mu, logvar, noise: tensors of one shape (any), dtype float32/float64. logvar is log(sigma^2).
    Returns a new tensor of that shape, differentiable in mu and logvar.
    """
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError(f"mu, logvar and noise must have one shape, got {tuple(mu.shape)}, "
                         f"{tuple(logvar.shape)} and {tuple(noise.shape)}")
    # 1. the standard deviation from the log-variance, computed so that it cannot overflow early
    # 2. shift and scale the given noise
    raise NotImplementedError("reparameterize: follow steps 1-2 above")


def gaussian_kl(mu, logvar):
    """KL(N(mu, diag exp(logvar)) || N(0, I)): summed over the D latent dimensions, averaged over the N examples.

    mu, logvar: [N, D]. Returns a 0-d tensor.
    """
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    # 1. the closed form -1/2 (1 + logvar - mu^2 - exp(logvar)) for every example and dimension
    # 2. a sum over the latent axis, then a mean over the batch
    raise NotImplementedError("gaussian_kl: follow steps 1-2 above")


def elbo_loss(x, recon_logits, mu, logvar):
    """Negative ELBO with a Bernoulli decoder, averaged over the batch.

    x: [N, ...] in [0, 1]; recon_logits: the decoder's logits, x's shape; mu, logvar: [N, D].
    Returns a 0-d tensor: mean over examples of (BCE from logits summed over pixels + KL summed over latents).
    """
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    # 1. binary cross-entropy of x under sigmoid(recon_logits), computed from the logits (never log(sigmoid))
    # 2. summed over every pixel axis of each example
    # 3. plus each example's KL, then the mean over the batch
    raise NotImplementedError("elbo_loss: follow steps 1-3 above")
