"""Bytes a managed block spends per entry, for 20 typical `coffer remember` one-liners.

Every byte of the block is read by the agent at every session start, so this is the cost of
one memory in its context. Prints the whole block's size, the fixed part (markers, digest,
heading, explanation) and the bytes per entry beyond the text itself.

Run: python benchmarks/bench_block.py [--show]
(To compare with another tree: PYTHONPATH=/path/to/tree python benchmarks/bench_block.py)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, isolated_env

FACTS = [
    "We deploy with make release; never push tags by hand.",
    "The staging database is reset every Sunday at 02:00 UTC.",
    "Use pnpm, not npm: the lockfile is pnpm-lock.yaml.",
    "API handlers live in src/api; one file per resource.",
    "Run the integration tests with make itest (needs Docker).",
    "Feature flags are read from config/flags.toml at start-up.",
    "Dates in the API are RFC 3339 strings in UTC.",
    "Never log request bodies: they may hold personal data.",
    "The CI cache key includes the Python minor version.",
    "Migrations are generated with alembic revision --autogenerate.",
    "Errors returned to clients use the problem+json format.",
    "The mobile app pins the API version in its User-Agent.",
    "Prefer small pull requests; one reviewer is enough.",
    "Background jobs run on the default queue unless marked slow.",
    "Secrets come from the vault agent, never from .env files.",
    "The search index is rebuilt nightly by the reindex job.",
    "Use structlog for logging; no print statements.",
    "Public endpoints need a rate limit in gateway.yaml.",
    "Screenshots for docs are taken at 1280x800.",
    "The billing service owns the invoices table; read it via its API.",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true", help="Print the 20-entry block.")
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        os.environ.update(env)
        from coffer.projection import managed_block
        from coffer.projection.blocks import content
        from coffer.projection.engine import block_title
        from coffer.store import Store

        root = base / "repo"
        (root / ".git").mkdir(parents=True)
        store = Store.from_environ(env)
        tier = store.project_tier(root, create=True)
        assert tier is not None
        for fact in FACTS:
            store.remember(tier, fact)
        entries = store.entries(tier)
        title = block_title(tier)

        def size(n: int) -> int:
            body = content.render(title, "project", entries[:n]).body
            return len(managed_block.upsert(None, body))

        whole, one = size(len(entries)), size(1)
        per_entry = (whole - one) / (len(entries) - 1)
        text = sum(len(f.encode()) for f in FACTS) / len(FACTS)
        print(f"coffer from           {Path(managed_block.__file__).parent}")
        print(f"entries               {len(entries)} (mean text {text:.1f} bytes)")
        print(f"block, 20 entries     {whole} bytes")
        print(f"fixed part            {one - per_entry:.0f} bytes")
        print(f"per entry             {per_entry:.1f} bytes ({per_entry / text:.2f}x its text)")
        if args.show:
            print(
                managed_block.upsert(None, content.render(title, "project", entries).body).decode()
            )


if __name__ == "__main__":
    main()
