"""Parsing bash: tokens, words, commands, arithmetic and conditionals into a typed AST."""
