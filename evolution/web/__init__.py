"""The live web view: watch games as they are played, follow a tournament, replay any game.

A read-only web site served from the host's own reactor (plain
``twisted.web``): pages of plain HTML, CSS and JavaScript modules from
``static/`` (no build step, nothing from other sites), a JSON API, and
Server-Sent Events that push each page's picture when it changes.

- ``service``: ``web_service(...)``, the one entry point the host wires in;
- ``site``: routes, security headers, JSON answers, event streams;
- ``push``: the hub of event streams, with a bound per watcher;
- ``view``: what each page shows, from the game runner and the store;
- ``reader``: reading the results store in a process of its own, with a time limit;
- ``summaries``, ``tables``, ``frames``: the JSON of games, tables and
  replays (pure functions).
"""
