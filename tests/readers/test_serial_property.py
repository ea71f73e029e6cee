"""Property: whatever mix of lost, corrupted and garbage lines, the host ends up believing the physical truth,
and its event stream never reports a card twice or lifts one it had not placed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tablepi.readers import ZoneEvent, open_reader
from tablepi.readers import protocol as p

from .conftest import PtyDevice, collect, settle, status_events

TAGS = ["04A1B2C3D4E5F6", "04B0B0B0B0B0B0", "DEADBEEF", "0411223344556677AABB", "04C0C0C0C0C0C0"]

ACTION = st.one_of(
    st.tuples(st.just("place"), st.integers(0, 3), st.sampled_from(TAGS), st.sampled_from(["ok", "lose", "corrupt"])),
    st.tuples(st.just("lift"), st.integers(0, 3), st.just(""), st.sampled_from(["ok", "lose", "corrupt"])),
    st.tuples(st.just("garbage"), st.just(0), st.binary(max_size=60), st.just("ok")),
)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ACTION, min_size=1, max_size=25))
# A card moved while its lift was lost: the snapshot lifts it where it was, then places it where it lies now.
@example([("place", 1, "04A1B2C3D4E5F6", "ok"), ("lift", 1, "", "lose"), ("place", 0, "04A1B2C3D4E5F6", "ok")])
@example([("place", 1, "04A1B2C3D4E5F6", "ok"), ("place", 1, "04B0B0B0B0B0B0", "lose"),
          ("place", 0, "04A1B2C3D4E5F6", "ok")])
def test_host_belief_converges_to_the_truth(actions: list[tuple[str, int, object, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rig = PtyDevice(Path(tmp), heartbeat=None)
        dev = rig.device
        try:
            with open_reader("serial", port=str(rig.path)) as reader:
                events = collect(reader, lambda ev: sum(s == "ONLINE" for _, s in status_events(ev)) >= 4)
                for kind, zone, arg, how in actions:
                    lose, corrupt = how == "lose", how == "corrupt"
                    if kind == "place":
                        if dev.zones[zone] == arg or arg in dev.zones:
                            continue  # a tag lies in one place at a time
                        dev.place(zone, str(arg), lose=lose, corrupt=corrupt)
                    elif kind == "lift":
                        dev.lift(zone, lose=lose, corrupt=corrupt)
                    else:
                        dev.send_raw(bytes(arg).replace(b"\n", b"") + b"\n")  # type: ignore[call-overload]
                # The next heartbeat shows any gap left by the last lines.
                dev.send(p.Heartbeat(1000, 10, 0, (1, 1, 1, 1)))
                events += settle(reader, 0.3)
                truth = tuple(None if z == p.State.EMPTY else z for z in dev.zones)
                assert reader.present == truth
                on: dict[int, str] = {}
                for ev in events:
                    if isinstance(ev, ZoneEvent):
                        if ev.present:
                            assert ev.zone not in on, f"place over a card: {ev}"
                            on[ev.zone] = ev.uid
                        else:
                            assert on.pop(ev.zone, None) == ev.uid, f"lift of a card not there: {ev}"
                assert tuple(on.get(z) for z in range(4)) == truth
        finally:
            rig.close()
