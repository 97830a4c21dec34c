"""Builtins: commands that see and change the shell's state."""
