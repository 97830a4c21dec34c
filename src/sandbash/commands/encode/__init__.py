"""od, xxd, hexdump, base64, base32, basenc and strings."""

from .base import cmd_base32, cmd_base64, cmd_basenc, cmd_strings
from .od import cmd_od
from .xxd import cmd_hexdump, cmd_xxd

__all__ = ["cmd_base32", "cmd_base64", "cmd_basenc", "cmd_hexdump", "cmd_od", "cmd_strings", "cmd_xxd"]
