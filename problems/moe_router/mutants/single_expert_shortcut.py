"""This is what you get when k equal to the number of experts takes a shortcut through a plain softmax of the
detached logits: the gates are right, but no gradient reaches the router on that path.

Overrides: top_k_gating
"""

_reference_top_k_gating = top_k_gating


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    if k == logits.shape[1]:
        return torch.softmax(logits.detach(), dim=1)  # every expert is chosen: nothing to mask
    return _reference_top_k_gating(logits, k)
