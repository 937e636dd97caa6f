"""Reference solution for the beam search problem. Trusted: imported only in the judge's process."""

import torch

from helpers import check_search_args


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    """(tokens, score): the best hypothesis of a beam search over the bigram table log_probs [V, V]."""
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach().to(torch.float64)  # [V, V]; exact sums of the entries the checks use
    alive = [((), 0.0)]  # (tokens after bos, total log-probability), best first
    finished = []  # in the order they finished
    for _ in range(max_len):
        slots = beam_size - len(finished)
        candidates = _expand(alive, table, bos)  # best first, ties in (parent, token) order
        alive = []
        for tokens, total in candidates[:slots]:
            (finished if tokens[-1] == eos else alive).append((tokens, total))
        if not alive:
            break
    pool = finished + alive  # hypotheses still alive after max_len steps compete, unfinished
    tokens, score = _best(pool, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)


def _expand(alive, table, bos):
    """Every hypothesis extended by every token, sorted by total log-probability; the sort is stable, so equal
    totals keep the listing order: the better-ranked parent first, then the smaller token."""
    V = table.shape[0]
    candidates = []
    for tokens, total in alive:
        last = tokens[-1] if tokens else bos
        row = table[last].tolist()
        candidates.extend((tokens + (v,), total + row[v]) for v in range(V))
    return sorted(candidates, key=lambda candidate: -candidate[1])


def _best(pool, alpha):
    """The hypothesis with the highest length-normalised score; the first of equal scores in pool order."""
    best_tokens, best_score = None, None
    for tokens, total in pool:
        score = total / _length_penalty(len(tokens), alpha)
        if best_score is None or score > best_score:
            best_tokens, best_score = tokens, score
    return best_tokens, best_score


def _length_penalty(length, alpha):
    """Wu et al. (2016): lp(Y) = ((5 + |Y|) / 6)^alpha, |Y| counting every generated token, eos included."""
    return ((5 + length) / 6) ** alpha
