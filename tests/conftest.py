"""Test-wide setup: makes tests/ importable (`from realtools import real_command, have`)."""
