"""Variational autoencoder (Kingma & Welling, 2014). Implement reparameterize, gaussian_kl and elbo_loss
below; the helpers check the contract for you."""

import torch
import torch.nn.functional as F  # noqa: F401 - binary_cross_entropy_with_logits is allowed (and stable)

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_tensors(names, tensors):
    """TypeError unless every tensor is float32/float64 and all share one dtype; ValueError unless finite."""
    for name, t in zip(names, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    first = tensors[0]
    for name, t in zip(names[1:], tensors[1:], strict=True):
        if t.dtype != first.dtype:
            raise TypeError(f"{name} must have {names[0]}'s dtype {first.dtype}, got {t.dtype}")
        if t.device != first.device:
            raise ValueError(f"{name} must be on {names[0]}'s device {first.device}, got {t.device}")
    for name, t in zip(names, tensors, strict=True):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


def _check_latent(mu, logvar):
    """ValueError unless mu and logvar are one [N, D] shape with N, D >= 1."""
    if mu.dim() != 2:
        raise ValueError(f"mu must be 2-D [N, D], got shape {tuple(mu.shape)}")
    if logvar.shape != mu.shape:
        raise ValueError(f"logvar must have mu's shape {tuple(mu.shape)}, got {tuple(logvar.shape)}")
    if mu.shape[0] < 1 or mu.shape[1] < 1:
        raise ValueError(f"need N >= 1 examples and D >= 1 latent dimensions, got shape {tuple(mu.shape)}")


def _check_data(x, recon_logits, mu):
    """ValueError unless x and recon_logits are one [N, ...] shape (N = mu's N, at least one pixel) and x is in
    [0, 1]."""
    if x.dim() < 2:
        raise ValueError(f"x must be [N, ...] with at least one pixel dimension, got shape {tuple(x.shape)}")
    if recon_logits.shape != x.shape:
        raise ValueError(f"recon_logits must have x's shape {tuple(x.shape)}, got {tuple(recon_logits.shape)}")
    if x.shape[0] != mu.shape[0]:
        raise ValueError(f"x has {x.shape[0]} examples but mu has {mu.shape[0]}")
    if x[0].numel() < 1:
        raise ValueError(f"each example needs at least one pixel, got shape {tuple(x.shape)}")
    if ((x < 0) | (x > 1)).any():
        raise ValueError("x holds Bernoulli means: every value must lie in [0, 1]")


def reparameterize(mu, logvar, noise):
    """z = mu + exp(logvar / 2) * noise, elementwise.

    mu, logvar, noise: tensors of one shape (any), dtype float32/float64. logvar is log(sigma^2).
    Returns a new tensor of that shape, differentiable in mu and logvar.
    """
    _check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
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
    _check_tensors(("mu", "logvar"), (mu, logvar))
    _check_latent(mu, logvar)
    # 1. the closed form -1/2 (1 + logvar - mu^2 - exp(logvar)) for every example and dimension
    # 2. a sum over the latent axis, then a mean over the batch
    raise NotImplementedError("gaussian_kl: follow steps 1-2 above")


def elbo_loss(x, recon_logits, mu, logvar):
    """Negative ELBO with a Bernoulli decoder, averaged over the batch.

    x: [N, ...] in [0, 1]; recon_logits: the decoder's logits, x's shape; mu, logvar: [N, D].
    Returns a 0-d tensor: mean over examples of (BCE from logits summed over pixels + KL summed over latents).
    """
    _check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    _check_latent(mu, logvar)
    _check_data(x, recon_logits, mu)
    # 1. binary cross-entropy of x under sigmoid(recon_logits), computed from the logits (never log(sigmoid))
    # 2. summed over every pixel axis of each example
    # 3. plus each example's KL, then the mean over the batch
    raise NotImplementedError("elbo_loss: follow steps 1-3 above")
