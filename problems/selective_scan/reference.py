"""Reference solution for the selective scan problem (Gu & Dao, 2023, Mamba). Trusted: imported only in the
judge's process."""

import torch

from helpers import check_discretize_inputs, check_scan_inputs


def discretize(delta, A, B):
    """(A_bar, B_bar), each [batch, L, D, N]: A_bar = exp(delta * A) (zero-order hold), B_bar = delta * B."""
    check_discretize_inputs(delta, A, B)
    return _discretize(delta, A, B)


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    """(y [batch, L, D], h_last [batch, D, N]) by the recurrence, one time step after another."""
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    inputs = B_bar * x.unsqueeze(-1)  # [batch, L, D, N]: B_bar_t * x_t, everything the state receives at step t
    h = _initial_state(x, A, h0)  # [batch, D, N]
    states = []
    for t in range(x.shape[1]):
        h = A_bar[:, t] * h + inputs[:, t]  # decay the old state, then add the new input
        states.append(h)
    hs = torch.stack(states, dim=1) if states else inputs  # [batch, L, D, N]; with L = 0, inputs is empty too
    return _readout(hs, C, x, D), _last_state(hs, h)


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    """The same (y, h_last), with no loop over time steps: a log2(L)-step associative scan."""
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    # Step t maps a state h to a_t h + b_t. Two consecutive steps compose into one of the same form:
    # (a2, b2) after (a1, b1) is (a2 a1, a2 b1 + b2). Combining every position with the partial result `shift`
    # positions earlier, for shift = 1, 2, 4, ..., leaves at position t the composition of steps 1..t:
    # a = A_bar_1 ... A_bar_t and b = the state reached from h0 = 0.
    a = A_bar  # [batch, L, D, N]
    b = B_bar * x.unsqueeze(-1)
    length = x.shape[1]
    shift = 1
    while shift < length:
        # the first `shift` positions already hold their whole prefix; the rest absorb the one `shift` earlier,
        # b first, because it needs the a of this position before that a absorbs its predecessor
        b = torch.cat([b[:, :shift], a[:, shift:] * b[:, :-shift] + b[:, shift:]], dim=1)
        a = torch.cat([a[:, :shift], a[:, shift:] * a[:, :-shift]], dim=1)
        shift *= 2
    hs = b
    if h0 is not None:
        hs = hs + a * h0.unsqueeze(1)  # h0 decayed by every step up to t: only products of A_bar <= 1, no division
    return _readout(hs, C, x, D), _last_state(hs, _initial_state(x, A, h0))


def _discretize(delta, A, B):
    dt = delta.unsqueeze(-1)  # [batch, L, D, 1]
    A_bar = torch.exp(dt * A)  # [batch, L, D, N]; delta * A <= 0, so A_bar is in [0, 1]: no overflow
    B_bar = dt * B.unsqueeze(2)  # [batch, L, 1, N] -> [batch, L, D, N]: Mamba's simplified B_bar = delta * B
    return A_bar, B_bar


def _initial_state(x, A, h0):
    if h0 is not None:
        return h0
    return x.new_zeros(x.shape[0], x.shape[2], A.shape[1])  # [batch, D, N]


def _readout(hs, C, x, D):
    y = (hs * C.unsqueeze(2)).sum(dim=-1)  # y_t[d] = sum_n C_t[n] h_t[d, n]: [batch, L, D]
    if D is not None:
        y = y + D * x  # the skip connection, one weight per channel
    return y


def _last_state(hs, h):
    if hs.shape[1] == 0:
        return h.clone()  # no step was taken: the initial state, as a new tensor
    return hs[:, -1].clone()
