"""This is what you get when the cosine is <p, z> / max(||p|| ||z||, 1e-12), the floor on the product of the two
norms (the formula older torch.nn.functional.cosine_similarity documented) instead of on each row's norm: two
aligned rows of norm 1e-7 get cosine 0.01 instead of 1.

Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    z = z.detach()
    return -((p * z).sum(dim=1) / (p.norm(dim=1) * z.norm(dim=1)).clamp_min(NORM_FLOOR)).mean()
