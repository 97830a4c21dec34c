"""Box mode: the shell service on a Unix socket, the bash/sh/zsh alias that talks to it, and host
programs from `[tool.<name>]` tables run in their own OS sandbox (bubblewrap).

Nothing is imported here: the alias client (`alias.py`) must start without the interpreter."""
