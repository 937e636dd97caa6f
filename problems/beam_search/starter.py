"""Beam search (Graves, 2012) with the length penalty of Wu et al. (2016), over a bigram table.

Implement beam_search below. The validation helper is supplied in helpers.py (shown read-only under the editor):
the function already calls it; keep that call.
"""

import torch

from helpers import check_search_args


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    """(tokens, score) for the best hypothesis under the bigram table log_probs [V, V].

    log_probs[a, v] is log P(next = v | previous = a); the first token follows bos. Each step extends every alive
    hypothesis by every token, ranks the candidates by total log-probability (ties: better parent, then smaller
    token), and keeps the best (beam_size - number finished); those ending with eos are finished. After max_len
    steps (or when nothing is alive) the finished and then the still-alive hypotheses compete on
    total / ((5 + length) / 6) ** alpha. tokens: int64 [max_len], padded with -1; score: a 0-d tensor of
    log_probs' dtype.
    """
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    raise NotImplementedError("beam_search: grow the alive hypotheses, set the finished ones aside")
