#!/bin/sh
# `coord run` end to end (SPEC §18), as a new user sees it: a plan of 5 tasks with dependencies, run by two
# real Claude Code processes (driven by the repository's fake model server, no account needed), each task in its
# own work tree, merged into main in dependency order by `--integrate`.
# Needs: npm run build, and Claude Code from `npm run agents:install` (or `claude` on PATH).
# Usage: sh scripts/run-demo.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${COORD_AGENTS_CACHE:-$HOME/.cache/coord-agents}
PATH="$CACHE/@anthropic-ai+claude-code@2.1.332/node_modules/.bin:$PATH"
coord() { node "$ROOT/bin/coord.js" "$@"; }
T=$(mktemp -d); export COORD_STATE=$T/state
export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.com GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.com
# Claude Code with its own empty HOME, pointed at the fake model.
mkdir -p "$T/home"; export HOME=$T/home ANTHROPIC_API_KEY=sk-ant-demo
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
(cd "$ROOT" && exec node bin/coord.js serve --port 0 --state "$COORD_STATE" >"$T/daemon.log" 2>&1) &
DAEMON=$!
mkdir "$T/app" && cd "$T/app" && git init -q -b main
printf '# app\n' > README.md && git add . && git commit -qm init
cat > plan.json <<'JSON'
{"tasks":[{"ref":"api","title":"add the api module"},{"ref":"use","title":"use the api","blocked_by":["api"]},
{"ref":"greet","title":"greet in French"},{"ref":"docs","title":"write the docs","blocked_by":["use","greet"]},
{"ref":"logs","title":"add logging"}]}
JSON
until [ -f "$COORD_STATE/daemon.json" ]; do sleep 0.2; done
echo '$ coord plan plan.json'; coord plan plan.json --json > "$T/plan.out"; coord tree
node --import "$ROOT/node_modules/tsx/dist/esm/index.mjs" "$ROOT/scripts/run-demo-model.ts" "$T/plan.out" "$T/app.worktrees" > "$T/model.url" &
MODEL=$!
trap 'kill $MODEL $DAEMON 2>/dev/null' EXIT
until [ -s "$T/model.url" ]; do sleep 0.2; done
export ANTHROPIC_BASE_URL=$(cat "$T/model.url")
echo; echo '$ coord run --agents claude:2 --integrate --once'
coord run --agents claude:2 --integrate --once
echo; echo '$ coord tree'; coord tree
echo; echo '$ git log --graph --oneline main'; git log --graph --oneline main
