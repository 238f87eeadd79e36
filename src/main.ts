#!/usr/bin/env node
import { buildProgram } from './transports/cli/program.js';

await buildProgram().parseAsync(process.argv);
