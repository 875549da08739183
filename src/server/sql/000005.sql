-- The pages a done job found out of focus or shaken (1-based), as a JSON array; NULL when none was. Portable SQL,
-- as 000001.
ALTER TABLE jobs ADD COLUMN out_of_focus TEXT;
