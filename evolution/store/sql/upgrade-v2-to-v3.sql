-- Version 2 -> 3: the host serves more than one game; every game and tournament says which.
-- What a version-2 store holds is Evolution.
UPDATE version SET version = 3;

ALTER TABLE games ADD COLUMN game TEXT NOT NULL DEFAULT 'evolution';
ALTER TABLE tournaments ADD COLUMN game TEXT NOT NULL DEFAULT 'evolution';
