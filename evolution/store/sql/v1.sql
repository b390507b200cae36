-- Results store, version 1: one row per finished game, one per player seat.
CREATE TABLE version (
    version INTEGER NOT NULL
);
INSERT INTO version (version) VALUES (1);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,          -- ISO 8601, UTC
    ended_at TEXT NOT NULL,
    deck TEXT NOT NULL,                -- 'shuffled' or 'sorted'
    seed INTEGER,                      -- the shuffle's seed; NULL for the sorted deck
    turns INTEGER NOT NULL,
    outcome TEXT NOT NULL              -- 'finished', or 'aborted: <why>'
);

CREATE TABLE players (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,             -- 1..n: the initial turn order (the player's id in the game)
    name TEXT NOT NULL,
    score INTEGER,                     -- NULL when removed
    rank INTEGER,                      -- NULL when removed
    removed_turn INTEGER,
    removed_step TEXT,
    removed_reason TEXT,
    PRIMARY KEY (game_id, seat)
);
