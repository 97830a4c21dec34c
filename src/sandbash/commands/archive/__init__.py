"""Archives and compressors: tar, gzip/gunzip/zcat, bzip2/bunzip2/bzcat,
xz/unxz/xzcat, zip/unzip. Everything works on bytes in memory or in streams
and reaches files only through the virtual filesystem."""

from .compress import (
    cmd_bunzip2,
    cmd_bzcat,
    cmd_bzip2,
    cmd_gunzip,
    cmd_gzip,
    cmd_unxz,
    cmd_xz,
    cmd_xzcat,
    cmd_zcat,
)
from .tar import cmd_tar
from .zip import cmd_unzip, cmd_zip

__all__ = [
    "cmd_bunzip2",
    "cmd_bzcat",
    "cmd_bzip2",
    "cmd_gunzip",
    "cmd_gzip",
    "cmd_tar",
    "cmd_unxz",
    "cmd_unzip",
    "cmd_xz",
    "cmd_xzcat",
    "cmd_zcat",
    "cmd_zip",
]
