"""Pure implementations shared by the builtins and the commands of the same
name (echo, printf, test): no shell state, no interpreter imports."""
