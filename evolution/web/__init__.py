"""The live web view: watch games as they are played, follow a tournament or the ladder, replay any game.

A read-only site (plain ``twisted.web``: pages of plain HTML, CSS and
JavaScript modules, a JSON API, Server-Sent Events), in a process of its own
when games are played in workers. Its README has a line per module;
``docs/web-view.md`` documents the pages and the API.
"""
