-- 0006_raw_dict.sql: a source's bytes compressed against a dictionary of its format's files
-- (schema/rawstore.c). Files of one format are alike (the same keys, job options and units in
-- every fio JSON of a fleet), and a frame of a few KiB compressed alone cannot refer to what the
-- files share; with a dictionary trained on the warehouse's own files it can (the fixtures'
-- formats: docs/schema.md). Rows written before this migration have raw_dict NULL and read as
-- they did: the first import after it trains and repacks (rawstore.c says when).

-- A zstd dictionary, trained on files of format. Known by its content, like a source: a
-- merge or a push stores one dictionary once.
CREATE TABLE raw_dict (
    id      INTEGER PRIMARY KEY,
    sha256  TEXT NOT NULL UNIQUE,   -- of bytes
    format  TEXT NOT NULL,          -- the importer of the files it was trained on
    bytes   BLOB NOT NULL           -- the dictionary (zstd's ZDICT format)
) STRICT;

-- The dictionary raw was compressed against (raw_codec 'zstd'); NULL: none.
ALTER TABLE source_file ADD COLUMN raw_dict INTEGER REFERENCES raw_dict(id);

-- The files stored whole without a dictionary, by format: what a dictionary's training samples
-- and what it repacks, and how many files a format has before it gets one (a count on this
-- small index, not a scan of every stored byte).
CREATE INDEX source_undictionaried ON source_file(format) WHERE raw_dict IS NULL AND raw IS NOT NULL;
