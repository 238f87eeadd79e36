#!/usr/bin/env node
// The hooks' entry, what `coord setup` writes into each client's hook configuration: CommonJS, so a hook run
// on every edit starts without Node's ES module loader (~6 ms of each run on this project's test machine).
// It runs the build's one-file hook bundle (scripts/bundle-hooks.mjs) when that is at least as new as what
// tsc emitted — and `coord mcp` its own bundle, as `coord run` starts it — and anything else exactly as
// bin/coord.js does.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const fresh = (bundle, entry) => mtime(bundle) > 0 && mtime(bundle) >= mtime(entry);
const hooks = join(dist, 'hook-bundle', 'main.cjs');
const mcp = join(dist, 'mcp-bundle', 'main.cjs');
const command = process.argv[2];

if ((command === 'hook' || command === 'prime') && fresh(hooks, join(dist, 'hooks', 'main.js')))
  require(hooks).main(process.argv.slice(2));
// `coord mcp` as `coord run` starts it for each agent (its client waits for it before the first model request).
else if (command === 'mcp' && fresh(mcp, join(dist, 'cli', 'mcp-main.js'))) require(mcp).main(process.argv);
else import('./coord.js');
