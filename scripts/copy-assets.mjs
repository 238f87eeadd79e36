// Copies the non-TypeScript files the runtime reads (SQL migrations, dashboard assets) from src/ to dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const ASSETS = new Set(['.sql', '.html', '.css', '.js', '.svg', '.png', '.ico']);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSETS.has(extname(name))) cpSync(path, path.replace(/^src/, 'dist'));
  }
}
walk('src');
