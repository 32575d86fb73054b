"""The embedding backlog `dropqa index` shows while it waits: texts left, the rate measured in the run,
the time left — and no estimate before the backlog has shrunk, or from a slope new files broke."""

from __future__ import annotations

from dropqa.ingestion.backlog import Backlog, BacklogClock, duration
from dropqa.ingestion.rows import embed_key


def test_rate_and_time_left_follow_the_distinct_texts() -> None:
    clock = BacklogClock(window_s=60)
    first = clock.update(20_000, 400, now=100.0)
    assert (first.rate, first.eta_s) == (None, None)
    assert first.line() == "embedding: 20,000 passage(s) left (400 text(s) to embed) · estimating the time left"
    later = clock.update(19_000, 300, now=110.0)  # 100 texts in 10 s
    assert later.rate == 10.0 and later.eta_s == 30.0
    assert later.line() == "embedding: 19,000 passage(s) left (300 text(s) to embed) · 10.0 texts/s · about 30 s left"


def test_new_texts_restart_the_measurement_and_old_samples_leave_the_window() -> None:
    clock = BacklogClock(window_s=30)
    clock.update(100, 100, now=0.0)
    clock.update(90, 90, now=10.0)
    grown = clock.update(500, 480, now=20.0)  # another file was written: the old slope says nothing
    assert grown.eta_s is None
    clock.update(440, 420, now=30.0)
    clock.update(380, 360, now=40.0)
    recent = clock.update(200, 180, now=70.0)  # faster lately: measured from the last sample 30 s old
    assert recent.rate == 6.0 and recent.eta_s == 30.0


def test_durations_read_like_a_person_would_say_them() -> None:
    assert [duration(s) for s in (4, 89.6, 200, 3599, 4 * 3600 + 600)] == ["4 s", "90 s", "3 min", "1 h",
                                                                           "4 h 10 min"]
    assert Backlog(5, 0).line() == "embedding: 5 passage(s) left (0 text(s) to embed)"  # copies only


def test_texts_that_differ_only_in_numbers_and_spacing_share_one_key() -> None:
    assert embed_key("Page 7 of the log.  Reading 49.") == embed_key("Page 8 of the log. Reading 1056.")
    assert embed_key("Reading 49") != embed_key("Reading forty-nine")
    assert embed_key("第3章 备份") == embed_key("第12章 备份") != embed_key("第三章 备份")
