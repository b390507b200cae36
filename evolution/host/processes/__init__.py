"""The host's child processes and its channels to them: starting a child, AMP over a socket pair, descriptors in bulk."""
