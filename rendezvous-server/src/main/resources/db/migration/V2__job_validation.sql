-- A validation job's figures and verdict (docs/validate.md); null for a plain sweep.
ALTER TABLE job ADD COLUMN validation TEXT; -- JSON ValidationResult
