"""The parallel form as a work-efficient odd-even recursion (Blelloch's idea): compose neighbouring pairs of
steps, scan the half-length sequence of pairs recursively, then finish the even positions from their odd
neighbours. The recurrence keeps a list of states and reads each one with an einsum."""

import torch

from helpers import check_discretize_inputs, check_scan_inputs


def discretize(delta, A, B):
    check_discretize_inputs(delta, A, B)
    scaled = torch.einsum("bld,dn->bldn", delta, A)
    return scaled.exp(), delta.unsqueeze(-1) * B.unsqueeze(-2)


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = discretize(delta, A, B)
    batch, length, channels = x.shape
    state = h0.clone() if h0 is not None else x.new_zeros((batch, channels, A.shape[1]))
    outputs = []
    for t in range(length):
        state = torch.addcmul(A_bar[:, t] * state, B_bar[:, t], x[:, t].unsqueeze(-1))
        outputs.append(torch.einsum("bdn,bn->bd", state, C[:, t]))
    y = torch.stack(outputs, dim=1) if outputs else x.new_zeros((batch, 0, channels))
    return (y if D is None else y + D * x), state


def _interleave(evens, odds):
    total = evens.shape[1] + odds.shape[1]
    if odds.shape[1] < evens.shape[1]:
        odds = torch.cat([odds, evens[:, -1:]], dim=1)  # a placeholder, cut off below
    both = torch.stack([evens, odds], dim=2)
    return both.reshape(evens.shape[0], 2 * evens.shape[1], *evens.shape[2:])[:, :total]


def _prefix(a, b):
    """Prefix compositions of the steps h -> a_t h + b_t along dim 1."""
    length = a.shape[1]
    if length <= 1:
        return a, b
    first_a, first_b = a[:, 0:length - 1:2], b[:, 0:length - 1:2]  # steps 0, 2, 4, ... that have a partner
    second_a, second_b = a[:, 1::2], b[:, 1::2]
    pair_a, pair_b = _prefix(second_a * first_a, second_a * first_b + second_b)  # prefixes ending at 1, 3, 5, ...
    later = (length - 1) // 2  # even positions after 0
    even_a = torch.cat([a[:, :1], a[:, 2::2] * pair_a[:, :later]], dim=1)
    even_b = torch.cat([b[:, :1], a[:, 2::2] * pair_b[:, :later] + b[:, 2::2]], dim=1)
    return _interleave(even_a, pair_a), _interleave(even_b, pair_b)


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = discretize(delta, A, B)
    decay, states = _prefix(A_bar, B_bar * x.unsqueeze(-1))
    if h0 is not None:
        states = states + decay * h0.unsqueeze(1)
    y = torch.einsum("bldn,bln->bld", states, C)
    if D is not None:
        y = y + D * x
    if x.shape[1]:
        return y, states[:, -1].clone()
    return y, h0.clone() if h0 is not None else x.new_zeros((x.shape[0], x.shape[2], A.shape[1]))
