/**
 * SPEC §19 `--notify CMD`: CMD (through `sh -c`) runs with each new attention item as JSON on stdin — at
 * most once per item. The list is made again after each commit the store reports and every few seconds
 * (time alone makes a claim idle or a hold old, and an agent's "waiting" is no event); an item gone from it
 * is forgotten, so one that comes back is new and told again. A restarted daemon tells what is open again.
 */
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import type { AttentionItem } from '../core/attention/attention.js';
import { attentionList } from '../core/attention/attention.js';
import type { Ctx } from '../core/operation.js';
import { attentionFacts } from '../core/ops/attention.js';

/** How long CMD may run before it is ended (a webhook that hangs must not pile processes up). */
const CMD_TIMEOUT_MS = 30_000;

export function notifyAttention(ctx: Ctx, log: Logger, command: string, everyMs: number): () => void {
  const known = new Set<string>();
  let running = false;
  let again = false;
  let stopped = false;
  const look = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const items = attentionList(await attentionFacts(ctx, undefined));
        const now = new Set(items.map((i) => i.id));
        for (const id of known) if (!now.has(id)) known.delete(id);
        for (const item of items) {
          if (known.has(item.id)) continue;
          known.add(item.id);
          if (!stopped) run(command, item, log);
        }
      } while (again && !stopped);
    } catch (err) {
      log.warn({ err }, 'reading the attention list for --notify failed');
    } finally {
      running = false;
    }
  };
  const unsubscribe = ctx.store.subscribe(() => void look());
  const timer = setInterval(() => void look(), everyMs);
  timer.unref();
  void look();
  return () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
  };
}

function run(command: string, item: AttentionItem, log: Logger): void {
  const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    if (stderr.length < 2000) stderr += b.toString();
  });
  const timer = setTimeout(() => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }, CMD_TIMEOUT_MS);
  timer.unref();
  child.on('error', (err) => log.warn({ err, item: item.id }, '--notify command could not start'));
  child.on('close', (code) => {
    clearTimeout(timer);
    if (code !== 0) log.warn({ item: item.id, code, stderr: stderr.trim() }, '--notify command failed');
  });
  child.stdin?.on('error', () => {});
  child.stdin?.end(`${JSON.stringify(item)}\n`);
}
