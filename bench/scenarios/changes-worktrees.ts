/**
 * SPEC §14: `coord changes` for the work trees of a 10,000-file repository (the main one and 4 linked), side
 * by side with a bare `git status --porcelain=v2 -z` + `git diff --name-only -z` loop over the same trees.
 * target: coord's median at most 2× the loop's.
 */
import { rmSync } from 'node:fs';
import { buildRepo, runChanges } from '../coord/changes.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const FILES = 10_000;
const TREES = 4;
const REPEATS = 7;
let dir = '';
let repo: { main: string; trees: string[] } = { main: '', trees: [] };

export default defineScenario({
  name: `coord changes, ${TREES} work trees of a ${FILES.toLocaleString('en')}-file repository`,
  metric: 'p50 ms per answer',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 2 },
  note: `coord = list_changes in process (SQLite, real git; cached statuses dropped before each answer); floor = git status --porcelain=v2 -z + git diff --name-only -z BASE HEAD, tree after tree; median of ${REPEATS} per round`,
  setup: async () => {
    dir = tempDir('coord-bench-changes-');
    repo = buildRepo(dir, FILES, TREES);
  },
  teardown: async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
  contenders: {
    coord: () => runChanges({ dir, ...repo, how: 'coord', repeats: REPEATS }),
    floor: () => runChanges({ dir, ...repo, how: 'floor', repeats: REPEATS }),
  },
});
