#!/bin/sh
# An independent MCP client against `coord mcp`: the MCP Inspector's CLI mode lists
# coord's tools, posts a task and reads it back from the inbox. Needs network access
# for npx the first time. Inspector 0.15.0 is the newest that runs on Node 20; on
# Node >= 22 set INSPECTOR_VERSION to try a newer one.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" # `--import tsx` resolves from the working directory
INSPECTOR="@modelcontextprotocol/inspector@${INSPECTOR_VERSION:-0.15.0}"
STATE=$(mktemp -d)

cleanup() {
  # `coord mcp` started a daemon in the background for this state directory: stop it.
  pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$STATE/daemon.json" 2>/dev/null || true)
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    # Wait for it to finish shutting down (it removes daemon.json and daemon.lock as it goes), so the
    # directory is not removed while the daemon still writes into it.
    i=0
    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  fi
  rm -rf "$STATE" || true
}
trap cleanup EXIT

inspect() {
  npx -y "$INSPECTOR" --cli \
    -e COORD_STATE="$STATE" -e COORD_PORT=0 -e COORD_LOG_LEVEL=warn \
    -e COORD_AGENT=inspector -e COORD_BOARD=inspector-smoke \
    node --import tsx src/main.ts mcp "$@"
}

expect() { # expect <what> <pattern> <output>
  if printf '%s' "$3" | grep -q -- "$2"; then
    echo "ok - $1"
  else
    echo "not ok - $1: no match for $2 in:"
    printf '%s\n' "$3"
    exit 1
  fi
}

out=$(inspect --method tools/list)
expect 'tools/list names claim_task' '"name": "claim_task"' "$out"
expect 'tools/list names lock_files' '"name": "lock_files"' "$out"
out=$(inspect --method tools/call --tool-name post_task --tool-arg 'title=smoke from the inspector')
expect 'post_task answers the new id' 'posted #' "$out"
out=$(inspect --method tools/call --tool-name inbox)
expect 'inbox lists the task' '#[a-z0-9]* task p0 [0-9]*s inspector: smoke from the inspector' "$out"
out=$(inspect --method tools/call --tool-name claim_task --tool-arg 'task_id=nosuchid')
expect 'a failing tool says its error code first' 'not_found: #nosuchid' "$out"
echo "inspector smoke: passed"
