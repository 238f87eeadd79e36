#!/usr/bin/env node
// The hooks' entry, what `coord setup` writes into each client's hook configuration: CommonJS, so a hook run
// on every edit starts without Node's ES module loader (~6 ms of each run on this project's test machine).
// It runs the build's one-file hook bundle (scripts/bundle-hooks.mjs) when that is at least as new as what
// tsc emitted, and anything else exactly as bin/coord.js does.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const bundle = join(dist, 'hook-bundle', 'main.cjs');
const command = process.argv[2];
const fresh = mtime(bundle) > 0 && mtime(bundle) >= mtime(join(dist, 'hooks', 'main.js'));

if ((command === 'hook' || command === 'prime') && fresh) require(bundle).main(process.argv.slice(2));
else import('./coord.js');
