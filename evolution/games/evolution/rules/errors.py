# -*- test-case-name: tests.games.evolution.rules.test_actions, tests.games.evolution.rules.test_feeding -*-
"""The rules layer's one error type.

``RulesViolation`` carries the reason, in words a bot author understands, why
an answer or a game state breaks the rules.
"""


class RulesViolation(Exception):
    """An answer (Action4, feeding choice) or a state that the rules forbid.

    ``where`` names the offending part (``grow-population[0]``), when there is one.
    """

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason = reason
        self.where = where
