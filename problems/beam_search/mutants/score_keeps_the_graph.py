"""This is what you get when the score is taken from the log-probabilities without detaching them: a search result
stays on the model's graph, so it keeps the model's activations alive and lets a gradient flow back.

Overrides: beam_search
"""

_reference_beam_search = beam_search


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    tokens, score = _reference_beam_search(log_probs, bos, eos, beam_size, max_len, alpha)
    return tokens, score + 0 * log_probs.sum()  # "the score depends on the table"
