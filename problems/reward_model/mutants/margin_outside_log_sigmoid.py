"""This is what you get when the margin is applied outside the log-sigmoid, as a constant added to each pair's
loss, instead of inside it: the value shifts, but the gradient no longer depends on the margin at all.

Overrides: preference_loss
Source: natolambert/rlhf-book pull request #96 ("Move margin inside sigmoid": the chapter 8 formula had the margin outside the sigmoid)
"""


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    losses = _pair_losses(_logit(r_chosen, r_rejected, None), label)
    if margin is not None:
        losses = losses + margin
    return _mean(losses)
