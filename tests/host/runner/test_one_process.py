"""The host with ``--workers 0`` (every game in the one process that signs players up), for what came after
the worker processes: the ladder, Fish's tournaments and single games, transcripts, the web view's API.

Each class here runs the tests of another module's class again, with ``--workers 0`` added to every host
it starts (``hosting.test_options``); those modules run them with worker processes, the default.
"""

from __future__ import annotations

from tests.games.fish import test_tournaments as fish_tournaments
from tests.games.fish.net import test_dialects as fish_games
from tests.host.modes import test_ladder_mode as ladder
from tests.replays import test_transcripts as transcripts
from tests.web import test_api as web_api
from tests.web import test_fish_api as fish_api

ONE_PROCESS = ("--workers", "0")


class OneProcessLadderTests(ladder.LadderHostTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessFishTournamentTests(fish_tournaments.HostedTournamentTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessFishCourseTests(fish_games.CourseTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessTranscriptTests(transcripts.TranscriptCommandTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessFishApiTests(fish_api.FishApiTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessWebGamesTests(web_api.LobbyAndGamesTests):
    HOST_OPTIONS = ONE_PROCESS


class OneProcessLadderWebTests(web_api.LadderAndTranscriptTests):
    HOST_OPTIONS = ONE_PROCESS
