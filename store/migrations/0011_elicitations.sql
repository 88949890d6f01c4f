-- PLACEHOLDER on branch sessions only: migration 0011 belongs to branch
-- elicit (issue 16's elicitations). On merge, take elicit's file over this
-- one (an add/add conflict on purpose: same name).
SELECT 1;
