-- SPEC §14: a lock taken from a work tree that ends (unlock, lapse, session or
-- claim end, submit) is not a hold yet: it waits, still guarding its paths from
-- other work trees, until coord has asked git whether they are pending there.
-- Pending keys become the hold; the rest end for the reason kept here.
ALTER TABLE locks ADD COLUMN ended_for TEXT;
