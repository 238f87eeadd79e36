
describe('coord hook notify and resume (Claude Code hook input)', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(() => d?.stop());

  test('a permission-prompt notification makes the agent waiting; its next prompt, or its stop, ends it', async () => {
    const input = (extra: Record<string, string>) =>
      `'${JSON.stringify({ session_id: 'f00dfeed-1', cwd: nowhere, ...extra })}'`;
    const hook = (event: string, extra: Record<string, string> = {}) =>
      shell(d, 'default', `printf %s ${input(extra)} | env -u COORD_AGENT -u COORD_BOARD coord hook ${event} --client claude`);
    const notified = await hook('notify', {
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    });
    assert.equal(notified.code, 0, notified.stderr);
    assert.equal(notified.stdout, '', 'the hook says nothing to the client');
    const item = await one(d, 'default', 'agent_waiting');
    assert.equal(item.why, 'Claude needs your permission to use Bash');
    assert.match(item.agent ?? '', /^claude#/);
    assert.equal((await hook('resume', { hook_event_name: 'UserPromptSubmit', prompt: 'yes' })).code, 0);
    assert.deepEqual(await attention(d, 'default'), []);
    await hook('notify', { hook_event_name: 'Notification', notification_type: 'idle_prompt', message: 'Claude is waiting for your input' });
    assert.equal((await one(d, 'default', 'agent_waiting')).why, 'Claude is waiting for your input');
    assert.equal((await hook('stop', { hook_event_name: 'Stop' })).code, 0);
    assert.deepEqual(await attention(d, 'default'), []);
  });
});
