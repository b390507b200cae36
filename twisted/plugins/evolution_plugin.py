"""The ``twistd evolution`` plugin: the host's options and service, loaded only when used."""

from twisted.application.service import ServiceMaker
from twisted.python.reflect import namedAny


class _HostMaker(ServiceMaker):
    @property
    def options(self):
        """Options whose problems end twistd with one line (not twistd's page of usage)."""
        return namedAny(self.module).TwistdOptions


evolution = _HostMaker(
    "Evolution tournament host",
    "evolution.application",
    "Host games of Evolution between bots that connect over TCP.",
    "evolution",
)
