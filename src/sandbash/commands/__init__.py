"""Commands: Python implementations of coreutils, grep, sed, awk, jq and friends.

Each command is `def cmd_NAME(ctx: Ctx) -> int` and works only through its
`Ctx` (streams, filesystem facade, environment, budget, sub-command runner).
"""
