import { readFileSync } from 'node:fs';

const pkgUrl = ['../../../package.json', '../../package.json', '../package.json'].map(
  (p) => new URL(p, import.meta.url),
);

/** The package version, read once (works from src/ under tsx, from dist/ and from dist/'s one-file bundles). */
export const VERSION: string = (() => {
  for (const url of pkgUrl) {
    try {
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'coord' && pkg.version) return pkg.version;
    } catch {}
  }
  return '0.0.0';
})();
