"""The sample moments are game records: they read back as written, and the table replays them as it would a
journal's (the reference screenshots show real states, never a View made by hand)."""

from __future__ import annotations

import pytest

from tablepi.table import Table

from .samples import SAMPLES, sample, table_of


@pytest.mark.parametrize("name", [n for n, m in SAMPLES.items() if m.record is not None])
def test_a_sample_is_its_record_replayed(name: str) -> None:
    record = SAMPLES[name].record
    assert record is not None
    script = record()
    read = script.record()
    assert list(read.events) == script.events  # nothing lost or changed between writing and reading
    replayed = Table.replay(script.events, script.rules, script.dealer, script.config).state
    table = table_of(name)
    assert table is not None and table.state == replayed


def test_the_samples_show_what_the_table_published() -> None:
    """A few facts of the pictures come straight from the table's state: the seated names, the slate's counts."""
    table = table_of("slate")
    assert table is not None
    state = table.state
    view = sample("slate")
    assert view.slate is not None
    open_lines = dict(state.match.open_lines)
    assert view.slate.bottom.open_count == open_lines[view.slate.bottom.team]
    assert view.slate.top.open_count == open_lines[view.slate.top.team]
    names = dict(state.names)
    seats = {s.seat: s.name for s in sample("match_start").seats}
    assert seats == names


def test_app_view_is_the_frame_the_service_draws() -> None:
    """The appliance test compares the guest's screen with ``app_view`` (it runs only in the VM, so this keeps its
    expected frame honest here): for a state with nothing else open it is the sample moment's View, console and
    labelled Menu button included."""
    from tablepi.config import DisplayConfig

    from .samples import app_view

    table = table_of("slate")
    assert table is not None
    assert app_view(table.state, DisplayConfig(language="en")) == sample("slate")
