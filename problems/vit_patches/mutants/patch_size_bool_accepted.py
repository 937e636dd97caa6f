"""This is what you get when patch_size = True is accepted as the int 1 (bool is a subclass of int in Python) instead of refused with a TypeError.

Overrides: check_images
"""

_reference_check_images = check_images


def check_images(images, patch_size):
    _reference_check_images(images, int(patch_size) if isinstance(patch_size, bool) else patch_size)
