"""GRPO: the validation helpers, supplied and read-only.

`from helpers import check_rewards, check_loss_inputs` in your solution. Each raises exactly the errors the
contract promises: TypeError for the wrong kind of value, ValueError for a value out of range."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_number(name, value, *, low, low_closed, high=math.inf):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above = value >= low if low_closed else value > low
    if not math.isfinite(value) or not above or not value < high:
        bracket = "[" if low_closed else "("
        raise ValueError(f"{name} must lie in {bracket}{low}, {high}), got {value}")


def check_rewards(rewards, group_size, eps):
    """rewards: a 1-D float32/float64 tensor [N] of finite values, N = B * group_size (N = 0 is legal), the
    group_size completions of each prompt next to each other. group_size: a Python int >= 1 (not a bool).
    eps: a Python int or float > 0."""
    _check_float_tensor("rewards", rewards)
    if isinstance(group_size, bool) or not isinstance(group_size, int):
        raise TypeError(f"group_size must be a Python int, got {type(group_size).__name__}")
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, got {group_size}")
    _check_number("eps", eps, low=0, low_closed=False)
    if rewards.dim() != 1:
        raise ValueError(f"rewards must be 1-D [B * group_size], got shape {tuple(rewards.shape)}")
    if rewards.shape[0] % group_size != 0:
        raise ValueError(f"rewards has {rewards.shape[0]} entries, not a multiple of group_size = {group_size}")
    _check_finite("rewards", rewards)


def check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta):
    """logp_new, logp_old, logp_ref: float32/float64 tensors [N, T] of one dtype (N >= 1, T >= 1), finite and
    <= 0 (they are log-probabilities); advantages: [N] of the same dtype, finite; mask: a bool tensor [N, T]; all
    on one device. clip_eps: a Python number in (0, 1); beta: a Python number >= 0."""
    logps = (("logp_new", logp_new), ("logp_old", logp_old), ("logp_ref", logp_ref))
    for name, t in (*logps, ("advantages", advantages)):
        _check_float_tensor(name, t)
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = a completion token), got {mask.dtype}")
    for name, t in (*logps[1:], ("advantages", advantages)):
        if t.dtype != logp_new.dtype:
            raise TypeError(f"{name} must have logp_new's dtype {logp_new.dtype}, got {t.dtype}")
    _check_number("clip_eps", clip_eps, low=0, low_closed=False, high=1)
    _check_number("beta", beta, low=0, low_closed=True)
    if logp_new.dim() != 2 or logp_new.shape[0] < 1 or logp_new.shape[1] < 1:
        raise ValueError(f"logp_new must be 2-D [N, T] with N >= 1 and T >= 1, got shape {tuple(logp_new.shape)}")
    shape = tuple(logp_new.shape)
    for name, t in (*logps[1:], ("mask", mask)):
        if tuple(t.shape) != shape:
            raise ValueError(f"{name} must have logp_new's shape {shape}, got {tuple(t.shape)}")
    if tuple(advantages.shape) != shape[:1]:
        raise ValueError(f"advantages must have shape [N] = {shape[:1]}, got {tuple(advantages.shape)}")
    for name, t in (*logps[1:], ("advantages", advantages), ("mask", mask)):
        if t.device != logp_new.device:
            raise ValueError(f"{name} must be on logp_new's device {logp_new.device}, got {t.device}")
    for name, t in (*logps, ("advantages", advantages)):
        _check_finite(name, t)
    for name, t in logps:
        if t.device.type != "meta" and bool((t.detach() > 0).any()):
            raise ValueError(f"{name} holds log-probabilities, which are <= 0; got a positive entry")


# ---------------------------------------------------------------------------------------------- the experiment
# The toy training of the notes' chart: the grader steps it with your functions' answers, one request a step,
# and these show what each step does with them.


def training_reference(generator, prompts, length, vocab, stop):
    """The pretrained policy's logits [prompts, length, vocab], position-wise, which already likes to stop early."""
    reference = 0.5 * torch.randn(prompts, length, vocab, generator=generator, dtype=torch.float64)
    reference[:, 1:, stop] += 1.0
    return reference


def training_rollouts(logits, generator, group, stop):
    """`group` completions per prompt from a position-wise policy: tokens, mask (through the first stop token) and
    rewards (1 when the completion stops right after the prompt's answer token, prompt p's answer being p % stop)."""
    prompts, length, vocab = logits.shape
    rows = torch.arange(prompts).repeat_interleave(group)
    probs = torch.softmax(logits, dim=-1)[rows]  # [N, T, V]: the policy ignores earlier tokens
    tokens = torch.multinomial(probs.reshape(-1, vocab), 1, generator=generator).reshape(-1, length)
    is_stop = tokens == stop
    first_stop = torch.where(is_stop.any(dim=1), is_stop.int().argmax(dim=1), torch.full_like(rows, length))
    mask = torch.arange(length).unsqueeze(0) <= first_stop.unsqueeze(1)  # the answer and its stop token
    before = tokens.gather(1, (first_stop - 1).clamp(0, length - 1).unsqueeze(1)).squeeze(1)
    rewards = ((first_stop > 0) & (first_stop < length) & (before == rows % stop)).to(torch.float64)
    return tokens, mask, rewards


def training_logp(logits, tokens, group):
    """log pi(token) of every completion's every position [N, T] (a log-probability, so never above 0)."""
    rows = torch.arange(logits.shape[0]).repeat_interleave(group)
    table = torch.log_softmax(logits, dim=-1)[rows]  # [N, T, V]
    return table.gather(2, tokens.unsqueeze(2)).squeeze(2).clamp(max=0.0)


def training_adam_step(logits, tokens, gradient, adam, step, lr, group):
    """The logits and Adam's moments after one step on the loss whose gradient in training_logp(logits, tokens) is
    `gradient` [N, T]. Through log_softmax by hand: the gradient of log softmax(x)[a] in x is onehot(a) - softmax(x),
    and each completion's positions add into its prompt's row."""
    rows = torch.arange(logits.shape[0]).repeat_interleave(group)
    scaled = gradient.to(logits.dtype).unsqueeze(2)  # [N, T, 1]
    per_completion = torch.zeros(*tokens.shape, logits.shape[-1], dtype=logits.dtype).scatter_add_(
        2, tokens.unsqueeze(2), scaled) - torch.softmax(logits, dim=-1)[rows] * scaled
    grad = torch.zeros_like(logits).index_add_(0, rows, per_completion)
    m, v = adam
    m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad * grad
    update = lr * (m / (1 - 0.9**step)) / ((v / (1 - 0.999**step)).sqrt() + 1e-8)
    return logits - update, (m, v)
