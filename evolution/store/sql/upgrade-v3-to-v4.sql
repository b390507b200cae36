-- Version 3 -> 4: a ladder per game (twistd evolution --ladder): its games are marked, and each
-- bot's rating and counts are kept by name. What a version-3 store holds is no ladder game.
UPDATE version SET version = 4;

ALTER TABLE games ADD COLUMN ladder INTEGER NOT NULL DEFAULT 0;

CREATE TABLE ladder (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    rating_mu REAL NOT NULL,
    rating_sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    removals INTEGER NOT NULL DEFAULT 0,
    last_game INTEGER REFERENCES games (id),
    PRIMARY KEY (game, name)
);
