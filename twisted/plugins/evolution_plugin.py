"""The ``twistd evolution`` plugin: the host's options and service, loaded only when used."""

from twisted.application.service import ServiceMaker
from twisted.python.reflect import namedAny


class _HostMaker(ServiceMaker):
    @property
    def options(self):
        """Options whose problems end twistd with one line (not twistd's page of usage).

        From the options' own module: ``--help`` and a mistaken option need
        nothing of the host (``evolution.host.tap`` loads to make the service).
        """
        return namedAny("evolution.host.options.TwistdOptions")


evolution = _HostMaker(
    "Evolution tournament host",
    "evolution.host.tap",
    "Host games of the course's games (Evolution, Fish) between bots that connect over TCP.",
    "evolution",
)
