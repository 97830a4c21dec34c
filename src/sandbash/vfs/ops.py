"""`FileOp`: the file actions the filesystem facade asks its gate about and the policy decides on.

A str enum, so a decision's audit text (`fs:read`), a policy's `decide` callback (`Action.kind`) and
the static check's effect names read exactly as before; the type says which names exist.
"""

from __future__ import annotations

from ..leanclass import str_enum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from enum import StrEnum
else:
    StrEnum = object  # (str_enum makes the class a StrEnum)


@str_enum
class FileOp(StrEnum):
    READ = "read"
    LIST = "list"
    STAT = "stat"
    EXEC = "exec"  # reading a script file that is run
    SOURCE = "source"  # reading a file that `source` / `.` runs
    WRITE = "write"
    CREATE = "create"
    DELETE = "delete"
    RENAME = "rename"
    CHMOD = "chmod"
    LINK = "link"
    SYMLINK = "symlink"


READ_OPS = frozenset({FileOp.READ, FileOp.LIST, FileOp.STAT, FileOp.EXEC, FileOp.SOURCE})
WRITE_OPS = frozenset(set(FileOp) - READ_OPS)
# actions that change every path below their own (a directory renamed or removed, a symbolic
# link made where a stricter grant's path would lie below it: that path then leads elsewhere)
SUBTREE_OPS = frozenset({FileOp.RENAME, FileOp.DELETE, FileOp.SYMLINK})
