"""Mixture-of-experts routing (Shazeer et al., 2017; Fedus et al., 2021): top-k gates, capacity, balancing loss.

Implement the three functions below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_assignments, check_router_logits


def top_k_gating(logits, k):
    """Dense gates [N, E] for router logits [N, E]: each token's k largest logits (ties: the smaller expert index)
    get the softmax over those k logits; every other gate is exactly 0. Differentiable."""
    check_router_logits(logits, k)
    raise NotImplementedError("top_k_gating: select k experts per token, softmax over their logits, scatter back")


def capacity_mask(experts, num_experts, capacity):
    """kept [N, K] bool for the routing choices experts [N, K] (best first): serve all first choices in token
    order, then all second choices, ...; a slot is kept while its expert has served fewer than capacity slots."""
    check_assignments(experts, num_experts, capacity)
    raise NotImplementedError("capacity_mask: serve the slots choice by choice, counting each expert's load")


def load_balancing_loss(logits, k):
    """E * sum_e f_e * P_e, a 0-d tensor: f_e = (top-k choices routed to e) / (N k), no gradient; P_e = mean over
    tokens of softmax(logits)[:, e], with gradient."""
    check_router_logits(logits, k, min_tokens=1)
    raise NotImplementedError("load_balancing_loss: routing shares times mean probabilities, scaled by E")
