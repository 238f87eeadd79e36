/** SQLite's own statements of a task's edges (store/shared/deps.ts): lists of ids arrive as JSON text. */
import { depsSql, reachableFrom } from '../shared/deps.js';
import { LINK_COLUMNS } from '../shared/deps-rows.js';
import { LANDED_SQL } from './landed-sql.js';

const IDS = '(SELECT value FROM json_each(@ids))';
const LINKS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id WHERE t.id IN ${IDS}`;

export const DEPS_SQL = depsSql(LANDED_SQL, {
  serialise: '', // one writer at a time already
  linkRows: LINKS,
  lockLinks: LINKS,
  // Every edge reachable from the given tasks along blocked_by: the part of the graph a new edge could close a cycle in.
  reachable: reachableFrom('SELECT value FROM json_each(@ids)'),
  deleteEdges: `DELETE FROM task_deps WHERE task_id = @task_id AND blocker_id IN ${IDS}`,
  tasksByIds: `SELECT * FROM tasks WHERE id IN ${IDS}`,
  insertEdges: 'INSERT OR IGNORE INTO task_deps (task_id, blocker_id) SELECT @task_id, value FROM json_each(@ids)',
});
