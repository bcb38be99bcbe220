"""Memory ids, slugs and timestamps (docs/vault-format.md §3.1, §3.2)."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# R5: fullmatch instead of ``$`` (which also matches before a final newline) and re.ASCII
# so \d is ASCII-only as in the reference.
MEMORY_ID = re.compile(r"mem_[a-z0-9][a-z0-9_-]{2,127}", re.ASCII)
SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}", re.ASCII)
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z", re.ASCII)

_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_leap(year: int) -> bool:
    # Proleptic Gregorian; year 0000 is a leap year (§3.1, Q16).
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_timestamp(value: str) -> bool:
    """§3.1: the fixed ISO-8601 form naming a real instant (checked arithmetically)."""
    match = _TIMESTAMP.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in match.groups())
    if not 1 <= month <= 12:
        return False
    days = 29 if month == 2 and is_leap(year) else _MONTH_DAYS[month - 1]
    return 1 <= day <= days and hour <= 23 and minute <= 59 and second <= 59


def format_timestamp(epoch_ms: int) -> str:
    """``Date.prototype.toISOString`` for an epoch in milliseconds (§3.1)."""
    seconds, millis = divmod(epoch_ms, 1000)
    parts = time.gmtime(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S", parts) + f".{millis:03d}Z"


def now_timestamp() -> str:
    """The current instant at millisecond precision, sub-millisecond time truncated."""
    return format_timestamp(time.time_ns() // 1_000_000)


def generate_id(created_at: str) -> str:
    """``mem_<YYYYMMDD>_<first 20 hex digits of a v4 UUID>`` (§3.2)."""
    date = created_at[0:4] + created_at[5:7] + created_at[8:10]
    return f"mem_{date}_{_uuid4().hex[:20]}"


def _uuid4() -> Any:
    # Imported on first write only: searches and reads never need it.
    import uuid

    return uuid.uuid4()
