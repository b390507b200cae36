-- Version 1 -> 2: tournaments, their rounds and entrants; per-game settings, tournament
-- seats and message logs. Games of version 1 keep their rows; they have no log.
UPDATE version SET version = 2;

CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    format TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    settings TEXT NOT NULL
);

CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    entrant INTEGER NOT NULL,
    name TEXT NOT NULL,
    rank INTEGER,
    points INTEGER NOT NULL DEFAULT 0,
    rating_mu REAL,
    rating_sigma REAL,
    winner INTEGER NOT NULL DEFAULT 0,
    failure TEXT,
    failed_round INTEGER,
    PRIMARY KEY (tournament_id, entrant)
);

CREATE TABLE rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round)
);

ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);
ALTER TABLE games ADD COLUMN round INTEGER;
ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

ALTER TABLE players ADD COLUMN entrant INTEGER;
ALTER TABLE players ADD COLUMN points INTEGER;
ALTER TABLE players ADD COLUMN rating_mu REAL;
ALTER TABLE players ADD COLUMN rating_sigma REAL;

CREATE TABLE game_logs (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    format INTEGER NOT NULL,
    log BLOB NOT NULL
);

CREATE INDEX games_by_tournament ON games (tournament_id, round);
