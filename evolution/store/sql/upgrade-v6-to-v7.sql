-- Version 6 -> 7: several hosts on one store (PostgreSQL): the host that played each game and runs each
-- tournament, and the games each host is playing (stored as aborted if it is killed). A version-6 store's
-- games and tournaments have no host.
UPDATE version SET version = 7;

ALTER TABLE games ADD COLUMN host TEXT;
ALTER TABLE tournaments ADD COLUMN host TEXT;
CREATE INDEX games_by_end ON games (ended_at, id);

CREATE TABLE running_games (
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL,
    started_at TEXT NOT NULL,
    game TEXT NOT NULL,
    tournament_id INTEGER,
    round INTEGER,
    ladder INTEGER NOT NULL DEFAULT 0,
    deck TEXT NOT NULL,
    seed INTEGER,
    settings TEXT NOT NULL,
    names TEXT NOT NULL
);
