"""Word expansion as a library: the shell injects itself through `env.ExpandEnv`."""
