"""The shell's variables as data: `Var`, its attribute flags, `Scope`/`VarStore` and the two
array types. Below the expansion layer (expansion reads variables through its injected
environment and needs only these types) and above the foundation (limits, syntax types)."""
