/**
 * PostgreSQL's own statements of a task's edges (store/shared/deps.ts): lists of ids are arrays; locking a
 * blocker's row orders a request against its landing (store/shared/landed.ts), which writes that row; edge changes on a
 * board are serialised, so two requests adding the two halves of a cycle cannot both pass the check.
 */
import { depsSql, reachableFrom } from '../shared/deps.js';
import { LINK_COLUMNS } from '../shared/deps-rows.js';
import { LANDED_SQL } from './landed-sql.js';

const LINKS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id = ANY (@ids::text[])`;

export const DEPS_SQL = depsSql(LANDED_SQL, {
  serialise: "SELECT pg_advisory_xact_lock(hashtext('coord.deps'), hashtext(@board))",
  linkRows: LINKS,
  lockLinks: `${LINKS} ORDER BY t.id FOR NO KEY UPDATE OF t`,
  reachable: reachableFrom('SELECT unnest(@ids::text[])'),
  deleteEdges: 'DELETE FROM task_deps WHERE task_id = @task_id AND blocker_id = ANY (@ids::text[])',
  insertEdges:
    'INSERT INTO task_deps (task_id, blocker_id) SELECT @task_id, unnest(@ids::text[]) ON CONFLICT DO NOTHING',
  tasksByIds: 'SELECT * FROM tasks WHERE id = ANY (@ids::text[])',
});
