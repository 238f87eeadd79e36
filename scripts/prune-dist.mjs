// Removes what dist/ holds from sources that no longer exist (a moved or deleted src/ file), so `npm pack`
// ships only the current build. Runs after tsc, never before: a failed build leaves dist/ as it was.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

function prune(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    const source = path.replace(/^dist/, 'src').replace(/\.js$/, '.ts');
    if (!existsSync(source) && !existsSync(path.replace(/^dist/, 'src'))) rmSync(path);
  }
}
prune('dist');
