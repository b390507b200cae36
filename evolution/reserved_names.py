# -*- test-case-name: tests.store.test_accounts, tests.net.test_signup -*-
"""Offers ``GUEST`` and ``HOST_SUFFIX``: the forms of a name the host keeps for the names it gives itself.

``GUEST`` begins the names a host with ``--accounts roster`` gives its
guests (``guest-1``, ``guest-2``: ``evolution.net.identity``);
``HOST_SUFFIX`` matches the ``#k`` a host adds to a name taken
(``evolution.net.signup.unique_name``). No bot account may have a name of
either form (``evolution.store.accounts``). Here, below both the store and
the network, so that each reads the one definition.
"""

from __future__ import annotations

import re

GUEST = "guest-"
HOST_SUFFIX = re.compile(r"#[0-9]+\Z")
