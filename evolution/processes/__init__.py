"""The process plumbing below every room: a child process, AMP over a socket pair, descriptors sent in bulk."""
