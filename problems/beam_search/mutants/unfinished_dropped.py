"""This is what you get when the hypotheses still alive after max_len steps are thrown away: when nothing reached eos in time there is no answer at all, and otherwise a worse finished one wins.

Overrides: beam_search
Source: sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning issue #191 ("max() arg is an empty sequence" when no caption completes); OpenNMT/OpenNMT-py issue #1345 (beam search returns no predictions when max_length is reached first)
"""

import torch


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach().to(torch.float64)
    alive = [((), 0.0)]
    finished = []
    for _ in range(max_len):
        slots = beam_size - len(finished)
        candidates = _expand(alive, table, bos)
        alive = []
        for tokens, total in candidates[:slots]:
            (finished if tokens[-1] == eos else alive).append((tokens, total))
        if not alive:
            break
    tokens, score = _best(finished, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
