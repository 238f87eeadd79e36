#!/bin/sh
# A new user's run of the integration queue (SPEC §15): a plan of 5 tasks worked by 3 scripted CLI agents
# in 3 work trees, one conflict resolved through its follow-up task, then `git log --graph` of main.
# Usage: sh scripts/integration-demo.sh   (prints what a person would see)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
coord() { node "$ROOT/bin/coord.js" "$@"; }
T=$(mktemp -d); export COORD_STATE=$T/state COORD_BOARD=demo
export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.com GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.com
(cd "$ROOT" && exec node bin/coord.js serve --port 0 --state "$COORD_STATE" >"$T/daemon.log" 2>&1) &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null' EXIT
mkdir "$T/app" && cd "$T/app" && git init -q -b main
printf 'export const greet = () => "hi";\n' > greet.ts && git add . && git commit -qm init
for w in alice bob carol; do git worktree add -q -b "feat/$w" "$T/wt-$w" main; done
until [ -f "$COORD_STATE/daemon.json" ]; do sleep 0.2; done
cat > plan.json <<'JSON'
{"tasks":[{"ref":"api","title":"add the api module"},{"ref":"use","title":"use the api","blocked_by":["api"]},
{"ref":"greet","title":"greet in French"},{"ref":"greet2","title":"greet in German"},{"ref":"docs","title":"write the docs"}]}
JSON
coord plan plan.json --agent planner --json > "$T/plan.out"
id() { node -e "console.log(JSON.parse(require('fs').readFileSync('$T/plan.out','utf8')).tasks['$1'].id)"; }
work() { # agent task file text
  cd "$T/wt-$1"
  claim=$(COORD_AGENT=$1 coord claim "$2" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).claim_id))")
  mkdir -p "$(dirname "$3")"; printf '%s\n' "$4" > "$3"; git add -A; git commit -qm "$1: $3"
  COORD_AGENT=$1 coord submit "$2" --claim "$claim" --ok >/dev/null
  echo "$1 completed #$2 in wt-$1"
}
work alice "$(id api)" src/api.ts 'export const api = 1;'
work bob "$(id greet)" greet.ts 'export const greet = () => "bonjour";'
work carol "$(id greet2)" greet.ts 'export const greet = () => "hallo";'
work alice "$(id use)" src/use.ts 'import { api } from "./api"; export const use = api;'
work bob "$(id docs)" README.md '# app'
cd "$T/app"
echo; echo '$ coord integrate --once'; coord integrate --once || true
echo; echo '$ coord ls --integration conflict --all'; coord ls --integration conflict --all
FOLLOW=$(coord ls --all --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const t=JSON.parse(s).tasks.find(t=>t.title.startsWith('resolve the conflicts'));console.log(t.id+' '+t.for)})")
F=${FOLLOW% *}; WHO=${FOLLOW#* }
echo; echo "$WHO resolves #$F in wt-$WHO:"
cd "$T/wt-$WHO"
claim=$(COORD_AGENT=$WHO coord claim "$F" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).claim_id))")
git merge -q main -m "merge main" 2>/dev/null || true
printf 'export const greet = () => "bonjour / hallo";\n' > greet.ts; git add greet.ts; git commit -qm "$WHO: resolve greet.ts"
COORD_AGENT=$WHO coord submit "$F" --claim "$claim" --ok >/dev/null
cd "$T/app"
echo; echo '$ coord integrate --once'; coord integrate --once
echo; echo '$ git log --graph --oneline main'; git log --graph --oneline main
