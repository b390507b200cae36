-- Results store, version 8: games of any game the host serves, with their seats and message logs, and the
-- host that played each; tournaments, their rounds, entrants, resumptions, tables and failures outside games;
-- each game's ladder; the games each host is playing. Text columns that hold what bots sent (names, reasons)
-- may hold any JSON string (see database.py).
CREATE TABLE version (
    version INTEGER NOT NULL
);
INSERT INTO version (version) VALUES (8);

CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL DEFAULT 'evolution', -- the game played: 'evolution' or 'fish' (evolution.games)
    format TEXT NOT NULL,              -- 'knockout' or 'swiss'
    status TEXT NOT NULL,              -- 'running', 'finished', 'interrupted' or 'empty'
    started_at TEXT NOT NULL,          -- ISO 8601, UTC
    ended_at TEXT,
    settings TEXT NOT NULL,            -- JSON object: players per game, rounds, time limit, seed ...
    host TEXT                          -- the host that runs it (twistd evolution --host-name); NULL before v7
);

CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    entrant INTEGER NOT NULL,          -- 1..n in sign-up order
    name TEXT NOT NULL,
    rank INTEGER,                      -- standing after the last round stored; NULL until ranked
    points INTEGER NOT NULL DEFAULT 0,
    rating_mu REAL,                    -- Swiss: openskill Plackett-Luce rating and its uncertainty
    rating_sigma REAL,
    winner INTEGER NOT NULL DEFAULT 0,
    failure TEXT,                      -- why the entrant is out of the tournament for good
    failed_round INTEGER,
    PRIMARY KEY (tournament_id, entrant)
);

CREATE TABLE resumptions (            -- each time a host resumed the tournament after it was interrupted
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,            -- the round it was interrupted in, and resumed in
    resumed_at TEXT NOT NULL,          -- ISO 8601, UTC
    PRIMARY KEY (tournament_id, resumed_at)
);

CREATE TABLE tournament_tables (       -- each round's tables, stored before the round's first game begins
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,          -- 1..n within its round
    seats TEXT NOT NULL,                -- JSON array: its entrants (their numbers) in turn order
    seed INTEGER,                          -- the seed its game is dealt from (NULL: a game dealt without one)
    decided_at TEXT NOT NULL,           -- ISO 8601, UTC
    walkover TEXT,                      -- JSON array: the entrants placed first when too few came back; NULL: played
    PRIMARY KEY (tournament_id, round, table_no)
);

CREATE TABLE tournament_failures (     -- an entrant out of its tournament outside any game, stored when decided
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    entrant INTEGER NOT NULL,
    round INTEGER NOT NULL,             -- the round it failed in (0: before the first, at the greeting)
    after_round INTEGER NOT NULL DEFAULT 0, -- 1: once that round was over (before the next round's tables)
    reason TEXT NOT NULL,
    failed_at TEXT NOT NULL,            -- ISO 8601, UTC
    PRIMARY KEY (tournament_id, entrant)
);

CREATE TABLE rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    summary TEXT NOT NULL,             -- the round's one-line summary, as logged
    PRIMARY KEY (tournament_id, round)
);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,          -- ISO 8601, UTC
    ended_at TEXT NOT NULL,
    deck TEXT NOT NULL,                -- how the game was dealt, in its game's word ('shuffled', 'sorted', 'random' ...)
    seed INTEGER,                      -- the deal's seed; NULL for a game dealt without one (a sorted deck)
    turns INTEGER NOT NULL,
    outcome TEXT NOT NULL,             -- 'finished', or 'aborted: <why>'
    tournament_id INTEGER REFERENCES tournaments (id),
    round INTEGER,
    settings TEXT NOT NULL DEFAULT '{}', -- JSON object: how the game was played (time limit, dialect, setup)
    game TEXT NOT NULL DEFAULT 'evolution', -- the game played: 'evolution' or 'fish' (evolution.games)
    ladder INTEGER NOT NULL DEFAULT 0, -- 1: a game of the host's ladder (twistd evolution --ladder)
    host TEXT,                         -- the host that played it (twistd evolution --host-name); NULL before v7
    table_no INTEGER                   -- in a tournament: the table of its round it was played for; NULL before v8
);

CREATE TABLE running_games (          -- the games a host is playing: a host killed mid-game finds them at its
    id INTEGER PRIMARY KEY,            -- next start and stores them as aborted
    host TEXT NOT NULL,
    started_at TEXT NOT NULL,
    game TEXT NOT NULL,
    tournament_id INTEGER,
    round INTEGER,
    ladder INTEGER NOT NULL DEFAULT 0,
    deck TEXT NOT NULL,
    seed INTEGER,
    settings TEXT NOT NULL,
    names TEXT NOT NULL                -- JSON array: the seats' names, in seat order
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
    entrant INTEGER,                   -- in a tournament: which entrant sat here
    points INTEGER,                    -- in a tournament: the points this game gave
    rating_mu REAL,                    -- Swiss, ladder: the player's rating after this game
    rating_sigma REAL,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE game_logs (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    format INTEGER NOT NULL,           -- 1: zlib-compressed JSON, see evolution/host/game_log.py
    log BLOB NOT NULL
);

CREATE INDEX games_by_tournament ON games (tournament_id, round);
CREATE INDEX games_by_end ON games (ended_at, id);  -- the newest games of every host first
CREATE INDEX players_by_name ON players (name, game_id);  -- a player's games, newest first (the web view's player page)
CREATE INDEX removals ON players (game_id, seat) WHERE removed_reason IS NOT NULL;  -- the newest removals (a ladder's)
CREATE INDEX removals_by_name ON players (name, game_id) WHERE removed_reason IS NOT NULL;  -- a player's

CREATE TABLE ladder (
    game TEXT NOT NULL,                -- whose ladder: 'evolution' or 'fish' (evolution.games)
    name TEXT NOT NULL,                -- the bot's name, as the host gave it (unique among the bots connected)
    rating_mu REAL NOT NULL,           -- openskill Plackett-Luce rating after its latest finished ladder game
    rating_sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,  -- finished ladder games it sat in (a removal included)
    wins INTEGER NOT NULL DEFAULT 0,   -- of them, games it placed first in (equal scores share a place)
    removals INTEGER NOT NULL DEFAULT 0, -- of them, games it was removed from
    last_game INTEGER REFERENCES games (id), -- its latest finished ladder game
    PRIMARY KEY (game, name)
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
