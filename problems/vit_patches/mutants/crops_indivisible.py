"""This is what you get when an image whose sides are not multiples of patch_size is silently cropped to whole patches instead of refused with a ValueError.

Overrides: patchify
"""


def patchify(images, patch_size):
    if isinstance(images, torch.Tensor) and images.dim() == 4 and isinstance(patch_size, int) and patch_size >= 1:
        h, w = images.shape[2], images.shape[3]
        cropped_h, cropped_w = h // patch_size * patch_size, w // patch_size * patch_size
        if cropped_h >= patch_size and cropped_w >= patch_size:
            images = images[:, :, :cropped_h, :cropped_w]
    check_images(images, patch_size)
    return _patches(images, patch_size)
