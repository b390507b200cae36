-- Version 7 -> 8: a tournament writes its decisions down before it acts on them, and a resumed tournament reads
-- them back (twistd evolution --resume): each round's tables (their seats in turn order, the seed of their
-- deal, a walkover), each entrant's failure outside any game, and the table each of its games was played for.
-- A version-7 store's tournaments have none of these (a resume of one says so).
UPDATE version SET version = 8;

ALTER TABLE games ADD COLUMN table_no INTEGER;

CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER,
    decided_at TEXT NOT NULL,
    walkover TEXT,
    PRIMARY KEY (tournament_id, round, table_no)
);

CREATE TABLE tournament_failures (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    entrant INTEGER NOT NULL,
    round INTEGER NOT NULL,
    after_round INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL,
    failed_at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, entrant)
);

-- Other additions of version 8 follow, one block each.

-- A host never heard from again (issue 39): each host's last sign of life, written by its store process about
-- once a minute (evolution/store/heartbeats.py); evolution-results --hosts shows it, evolution-admin abort-host
-- refuses a host heard from recently.
CREATE TABLE host_heartbeats (
    host TEXT PRIMARY KEY,             -- the host's name (twistd evolution --host-name)
    last_seen TEXT NOT NULL            -- when its store process last wrote here, ISO 8601 UTC
);

-- Bot accounts (issue 36, evolution-accounts and --accounts): owners (a person or a team) and their bots, each
-- bot with its secret kept only as a salted scrypt hash (and a 4-hex-digit tag of its SHA-256, so that a sign-up
-- name that is a secret finds its few candidates without hashing against every bot), banned flags, and the
-- address prefixes (CIDR, comma-separated) a bot's name may be pinned to.
CREATE TABLE owners (
    name TEXT PRIMARY KEY,             -- the owner's handle, as evolution-accounts takes it
    display_name TEXT NOT NULL,
    contact TEXT NOT NULL DEFAULT '',
    banned_at TEXT,                    -- when it was banned (every bot of it is refused), or NULL
    created_at TEXT NOT NULL
);

CREATE TABLE bots (
    name TEXT PRIMARY KEY,             -- the bot's public name: the only name the log, the store and the pages show
    owner TEXT NOT NULL REFERENCES owners (name),
    secret_hash TEXT NOT NULL,         -- scrypt$N$r$p$salt$hash (hex): never the secret itself
    secret_tag TEXT NOT NULL,          -- the first 4 hex digits of the secret's SHA-256 (16 bits: a lookup, no more)
    banned_at TEXT,
    prefixes TEXT NOT NULL DEFAULT '', -- CIDR prefixes the bot must connect from, comma-separated; '' for any
    created_at TEXT NOT NULL,
    rotated_at TEXT NOT NULL           -- when its secret was last issued
);

CREATE INDEX bots_by_tag ON bots (secret_tag);
CREATE INDEX bots_by_owner ON bots (owner, name);

CREATE TABLE bot_sessions (             -- one live session per proven bot across the hosts of one store
    name TEXT PRIMARY KEY REFERENCES bots (name),
    host TEXT NOT NULL,                -- the host holding it (--host-name); a host that died is released
    since TEXT NOT NULL
);
