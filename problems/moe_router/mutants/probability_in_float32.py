"""This is what you get when the router probabilities are computed with .float() (a habit from mixed-precision
training code): a float64 loss then carries float32's rounding.

Overrides: load_balancing_loss
"""


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)
    counts = torch.zeros(E, dtype=logits.dtype).index_add_(0, chosen.reshape(-1),
                                                           torch.ones(N * k, dtype=logits.dtype))
    fraction = counts / (N * k)
    mean_probability = torch.softmax(logits.float(), dim=1).mean(dim=0).to(logits.dtype)
    return E * (fraction * mean_probability).sum()
