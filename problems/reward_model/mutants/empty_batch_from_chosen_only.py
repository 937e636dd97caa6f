"""An empty batch returns a zero built from r_chosen alone (its sum times 0): the loss is on the graph only when
r_chosen requires grad, so a batch whose rejected rewards or margins are the ones being trained gets a loss that
backward() refuses.

Overrides: preference_loss
"""


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    if r_chosen.numel() == 0:
        return r_chosen.sum() * 0
    return _mean(_pair_losses(_logit(r_chosen, r_rejected, margin), label))
