"""Tensors all the way: totals in log_probs' own dtype, each step one [alive, V] score matrix, flattened and
stably sorted; hypotheses kept as rows of a token matrix."""

import torch

from helpers import check_search_args


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach()
    V = table.shape[0]
    sequences = torch.empty(1, 0, dtype=torch.int64)  # [alive, t]
    totals = torch.zeros(1, dtype=table.dtype)  # [alive]
    last = torch.tensor([bos])
    pool = []  # (tokens tensor, total), finished first in finishing order
    for _ in range(max_len):
        slots = beam_size - len(pool)
        scores = totals[:, None] + table[last]  # [alive, V], row by row in beam order
        order = torch.sort(scores.reshape(-1), descending=True, stable=True).indices[:slots]
        parents, tokens = order // V, order % V
        grown = torch.cat([sequences[parents], tokens[:, None]], dim=1)
        grown_totals = scores.reshape(-1)[order]
        ended = tokens == eos
        pool.extend((grown[i], grown_totals[i]) for i in range(len(order)) if ended[i])
        keep = ~ended
        sequences, totals, last = grown[keep], grown_totals[keep], tokens[keep]
        if len(sequences) == 0:
            break
    pool.extend((sequences[i], totals[i]) for i in range(len(sequences)))
    lengths = torch.tensor([len(tokens) for tokens, _ in pool], dtype=torch.float64)
    normalised = torch.stack([total.double() for _, total in pool]) / ((5 + lengths) / 6) ** alpha
    best = int(torch.argmax(normalised))  # the first of equal maxima
    result = torch.full((max_len,), -1, dtype=torch.int64)
    result[: len(pool[best][0])] = pool[best][0]
    return result.to(log_probs.device), normalised[best].to(log_probs.dtype).to(log_probs.device)
