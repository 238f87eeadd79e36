// A hash of everything under src/ (paths and contents). `npm run build` writes it to dist/.source-hash when it
// ends; the tests run the CLI from dist/ only when that stamp equals the hash of the sources in front of them,
// so a test never runs a stale build (and, when the build is current, never pays tsx's compile per process).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export function sourceHash(root) {
  const hash = createHash('sha256');
  const src = join(root, 'src');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile())
        hash
          .update(`${relative(src, path)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  walk(src);
  return hash.digest('hex');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(process.cwd(), 'dist/.source-hash'), `${sourceHash(process.cwd())}\n`);
}
