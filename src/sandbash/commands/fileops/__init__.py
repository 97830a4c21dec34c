"""File-changing commands: cp mv rm mkdir rmdir touch ln chmod chown chgrp
truncate install mktemp shred sync (GNU coreutils 9.1 behaviour on the Vfs)."""

from .copy import cmd_cp
from .create import cmd_ln, cmd_mkdir, cmd_mktemp, cmd_sync, cmd_touch, cmd_truncate
from .move import cmd_install, cmd_mv
from .perms import cmd_chgrp, cmd_chmod, cmd_chown
from .remove import cmd_rm, cmd_rmdir, cmd_shred

__all__ = [
    "cmd_chgrp",
    "cmd_chmod",
    "cmd_chown",
    "cmd_cp",
    "cmd_install",
    "cmd_ln",
    "cmd_mkdir",
    "cmd_mktemp",
    "cmd_mv",
    "cmd_rm",
    "cmd_rmdir",
    "cmd_shred",
    "cmd_sync",
    "cmd_touch",
    "cmd_truncate",
]
