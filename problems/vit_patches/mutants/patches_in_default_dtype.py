"""This is what you get when the patches are written into a buffer made without a dtype (torch.zeros(B, N, K) is float32) and converted back at the end: float64 pixels lose their low bits, and 1e300 becomes inf.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    out = torch.zeros(b, (h // p) * (w // p), p * p * c)
    grid = images.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
    out[:] = grid.reshape(b, (h // p) * (w // p), p * p * c).detach()
    result = out.to(images.dtype)
    return result + 0 * grid.reshape(b, (h // p) * (w // p), p * p * c) if images.requires_grad else result
