// Preload (`--import`): on SIGUSR2, asks V8 to optimize a small function at once and writes to
// $COORD_TEST_PROBE whether TurboFan did ("turbofan") or could not ("off"). V8's natives syntax is
// switched on for this one function; the process under test runs its own code unchanged.
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.COORD_TEST_PROBE;
if (out) {
  v8.setFlagsFromString('--allow-natives-syntax');
  const probe = new Function(`
    function f(x) { return x * 2 + 1; }
    %PrepareFunctionForOptimization(f); f(1); f(2);
    %OptimizeFunctionOnNextCall(f); f(3);
    return %GetOptimizationStatus(f);`);
  v8.setFlagsFromString('--no-allow-natives-syntax');
  // Bit 6 of V8's optimization status: the function runs TurboFan code.
  process.on('SIGUSR2', () => writeFileSync(out, probe() & 64 ? 'turbofan' : 'off'));
}
