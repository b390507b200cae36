"""Helpers the tests share: hosts and clients in the test process, bots that misbehave, browsers, busy cores, small disks."""
