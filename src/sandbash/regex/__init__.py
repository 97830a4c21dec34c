"""The shared safe regular-expression layer (POSIX BRE/ERE, PCRE, awk) on RE2."""
