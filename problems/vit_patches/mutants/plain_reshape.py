"""This is what you get when the image is reshaped straight to [B, N, P*P*C] without rearranging: each "patch" is a run of consecutive pixels of one channel, not a P x P block.

Source: duoan/TorchCode issue #21 ("vit_patch: Patchification of input image not correctly checked"): x.view(B, num_patches, -1) passed the exercise's tests.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    return images.reshape(b, (h // p) * (w // p), p * p * c).clone()
