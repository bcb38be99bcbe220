#!/bin/sh
# Run the real-agent suite (tests/agents): installs the pinned agents into a cache
# directory once, then runs them offline against a local request recorder.
#   tests/agents/run.sh [pytest args]
# Needs node/npm and git; the first run downloads the agents (~600 MB), later runs are offline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${COFFER_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coffer-agent-tests}
python=${PYTHON:-$repo/.venv/bin/python}
bin="$cache/bin"
mkdir -p "$bin"
install() {  # name, npm package@version
    dir="$cache/$1"
    if [ ! -x "$dir/node_modules/.bin/$1" ] || [ "$(cat "$dir/.pinned" 2>/dev/null)" != "$2" ]; then
        mkdir -p "$dir"
        npm install --silent --no-audit --no-fund --prefix "$dir" "$2"
        echo "$2" >"$dir/.pinned"
    fi
    ln -sf "$dir/node_modules/.bin/$1" "$bin/$1"
}
install claude @anthropic-ai/claude-code@2.1.332
install codex @openai/codex@0.171.0
install gemini @google/gemini-cli@0.61.0
cd "$repo"
COFFER_AGENTS_BIN="$bin" exec "$python" -m pytest -m agents tests/agents "$@"
