"""sandbash."""
