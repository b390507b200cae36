from twisted.application.service import ServiceMaker

evolution = ServiceMaker(
    "Evolution tournament host",
    "evolution.host.service",
    "Host games of Evolution between bots that connect over TCP.",
    "evolution",
)
