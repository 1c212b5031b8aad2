-- 0008_raw_dict_index.sql: the files stored against each compression dictionary, found without
-- reading the table (schema/rawstore_train.c). A new warehouse packs against the dictionary
-- benchdb ships for a format; once 10,240 files are stored against it, the import that stores
-- them trains one on them to replace it, and vacuum repacks a format's files stored against an
-- older one: both count and pick those files by this index.
CREATE INDEX source_by_dict ON source_file(raw_dict) WHERE raw_dict IS NOT NULL;
