-- A permission's hub kind (agent, terminal, file, git, budget) and the
-- hub's own description of what it allows (hub.PermissionRequest, JSON):
-- what rules matched, what was shown, what the audit keeps. Permissions
-- stored before have neither ('' and NULL).
ALTER TABLE permissions ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE permissions ADD COLUMN request TEXT;
