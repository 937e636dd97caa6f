"""This is what you get when beam_search skips the supplied validation: a beam of zero, a table of positive or non-finite entries, a negative length penalty or a start token outside the vocabulary get a search (or a stray IndexError) instead of the promised error.

Overrides: beam_search
"""


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = float(alpha)
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
    pool = finished + alive
    tokens, score = _best(pool, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
