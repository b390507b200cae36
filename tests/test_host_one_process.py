"""The host with ``--workers 0`` (every game in the one process that signs players up), for what came after
the worker processes: the ladder, Fish's tournaments and single games, transcripts, the web view's API.

Each class here runs the tests of another module's class again, with ``--workers 0`` added to every host
it starts (``hosting.test_options``); those modules run them with worker processes, the default.
"""

from __future__ import annotations

import test_fish_net_games as fish_games
import test_fish_tournaments as fish_tournaments
import test_host_transcripts as transcripts
import test_ladder_host as ladder
import test_web_api as web_api
import test_web_fish_api as fish_api

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
