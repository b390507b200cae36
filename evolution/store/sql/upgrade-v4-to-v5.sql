-- Version 4 -> 5: a tournament a host was interrupted in may be resumed (twistd evolution --resume);
-- each resumption is kept. A version-4 store holds none.
UPDATE version SET version = 5;

CREATE TABLE resumptions (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    resumed_at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, resumed_at)
);
