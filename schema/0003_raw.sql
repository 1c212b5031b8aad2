-- 0003_raw.sql: a source's bytes are stored compressed when that pays (schema/rawstore.c).
-- A codec of NULL means the bytes are stored as they are, which is how every row written
-- before this migration reads: nothing is rewritten.

-- The codec of raw: NULL (as is) or 'zstd' (one zstd frame of size_bytes bytes).
ALTER TABLE source_file ADD COLUMN raw_codec TEXT CHECK (raw_codec IN ('zstd'));

-- The codec of data, as raw_codec, and the piece's length once decoded (NULL: length(data),
-- the bytes being stored as is).
ALTER TABLE source_chunk ADD COLUMN codec TEXT CHECK (codec IN ('zstd'));
ALTER TABLE source_chunk ADD COLUMN size_bytes INTEGER CHECK (size_bytes >= 0);
