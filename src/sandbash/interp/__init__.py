"""The interpreter: shell state, evaluator (what runs) and executor (how it runs)."""
