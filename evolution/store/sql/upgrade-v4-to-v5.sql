-- Version 4 -> 5: indexes, so that the web view reads a player's games, and the newest removals,
-- without reading every seat of every game. Nothing else changes.
UPDATE version SET version = 5;

CREATE INDEX players_by_name ON players (name, game_id);
CREATE INDEX removals ON players (game_id, seat) WHERE removed_reason IS NOT NULL;
CREATE INDEX removals_by_name ON players (name, game_id) WHERE removed_reason IS NOT NULL;
