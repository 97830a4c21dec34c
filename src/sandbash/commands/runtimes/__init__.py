"""Embedded language runtimes run as sandbash commands: `python3`/`python` (Monty), `sqlite3`
(stdlib sqlite3 over a database file of the virtual filesystem), and the ones rt-lua-js adds.

Each reads and writes files only through the command context's filesystem facade (policy, quota),
its streams are the command's streams, and the run's deadline, cancellation and memory budget
stop it like any other command. `common.py` holds the invocation helpers they share.
"""
