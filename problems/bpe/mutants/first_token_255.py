"""This is what you get when the first merged token gets id 255 instead of 256: it collides with the byte 255.

Overrides: BYTE_VALUES
"""

BYTE_VALUES = 255
