""" "Did you mean …?" for a name that matches nothing (an agent, an entry)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def close_names(word: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """The names ``word`` most likely meant: those it begins (``staging`` for
    ``staging-database``) or is a whole word of, then the nearest spellings (``claud``)."""
    known = sorted(set(names))
    low = word.lower()
    if not low:
        return []
    starts = [n for n in known if n.lower().startswith(low) and n.lower() != low]
    words = [n for n in known if low in n.lower().split("-") and n not in starts]
    import difflib  # only once a name has failed to match

    near = difflib.get_close_matches(low, [n.lower() for n in known], n=limit, cutoff=0.6)
    by_low = {n.lower(): n for n in known}
    spelled = [by_low[n] for n in near if by_low[n] not in starts and by_low[n] not in words]
    return (starts + words + spelled)[:limit]


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the close names, or ``""``."""
    return phrase(close_names(word, names))


def phrase(found: Sequence[str]) -> str:
    if not found:
        return ""
    quoted = [repr(n) for n in found]
    either = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f" (did you mean {either}?)"


def command(*words: str) -> str:
    """A command line to suggest, in backticks, each word quoted for the shell if it needs
    it: an entry from a synced or hand-written file may be named ``REWRITTEN fact-…``, and
    the suggestion must run as printed."""
    import shlex

    return "`" + " ".join(shlex.quote(w) for w in words) + "`"
