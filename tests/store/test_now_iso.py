"""The store's timestamps are UTC to the second, in datetime's ISO form."""

from __future__ import annotations


def test_now_iso_is_datetimes_form() -> None:
    import datetime

    from coffer.store.projects import now_iso

    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    stamp = now_iso()
    after = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    assert before <= datetime.datetime.fromisoformat(stamp) <= after
    assert len(stamp) == len(before.isoformat()) and stamp.endswith("+00:00")
