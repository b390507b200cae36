-- Version 5 -> 6: a tournament a host was interrupted in may be resumed (twistd evolution --resume);
-- each resumption is kept. A version-5 store holds none.
UPDATE version SET version = 6;

CREATE TABLE resumptions (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    resumed_at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, resumed_at)
);
