-- A turn's resumption is no row any more: the writer keeps it in memory and
-- derives it from the turns when it starts (resumes.go), which also covers
-- the items deleted here.
DELETE FROM inbox WHERE kind = 'turn.resume';
