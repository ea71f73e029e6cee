"""The shared link mechanism (LinkedReader) on its own, with a fake link and a clock the test moves.

The serial and pcsc tests check it against real ports and a real pcscd; these pin down the mechanism itself:
the backoff sequence, OFFLINE said once, the backoff reset after a lost link, and close() waking a waiting recv.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time

import pytest

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers.events import ReaderEvent, ZoneEvent, ZoneState, ZoneStatus
from tablepi.readers.link import LinkedReader
from tests.waits import stack_of, wait_until

from .conftest import collect

UID = "04A1B2C3D4E5F6"


class FakeClock:
    """A monotonic clock that moves only when the reader waits (so backoff times are exact)."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class ClockWake:
    """Stands in for the reader's wake event: waiting moves the fake clock instead of sleeping."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.woken = False

    def wait(self, timeout: float | None = None) -> bool:
        self.clock.t += timeout or 0.0
        return self.woken

    def set(self) -> None:
        self.woken = True


class FakeLink(LinkedReader):
    """A link that is made only when the test allows it and breaks when the test says so."""

    backend = "fake"
    link_name = "fake link"
    link_failed_counter = "fake_failed"
    link_lost_detail = "fake link lost"

    def __init__(self, clock: FakeClock | None = None, **options: float) -> None:
        super().__init__(zones=2, clock=clock or time.monotonic, **options)
        self.reachable = False
        self.up = False
        self.attempts: list[float] = []
        self.downs: list[str] = []
        self.break_next = False
        self.inbox: collections.deque[ZoneEvent] = collections.deque()

    def _link_is_up(self) -> bool:
        return self.up

    def _link_up(self) -> str | None:
        self.attempts.append(self._now())
        if not self.reachable:
            return "no fake hardware"
        self.up = True
        for zone in range(self.zones):
            self._set_state(zone, ZoneState.ONLINE, "", self._now())
        return None

    def _link_down(self, why: str) -> None:
        self.up = False
        self.downs.append(why)

    def _link_ok(self, now: float) -> bool:
        if self.break_next:
            self.break_next = False
            self._link_lost("cable pulled")
            return False
        return True

    def _pump_link(self, timeout: float) -> None:
        if self.inbox:
            self._items.append(self.inbox.popleft())
        else:
            self._wake.wait(timeout)


def fake(**options: float) -> tuple[FakeLink, FakeClock]:
    clock = FakeClock()
    reader = FakeLink(clock, **options)
    reader._wake = ClockWake(clock)  # type: ignore[assignment]
    return reader, clock


def drain(reader: FakeLink, seconds: float) -> list[ReaderEvent]:
    """Every event within ``seconds`` of fake time."""
    events: list[ReaderEvent] = []
    while (event := reader.recv(seconds)) is not None:
        events.append(event)
    return events


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


def test_failed_attempts_back_off_doubling_to_the_maximum() -> None:
    reader, _ = fake(backoff_initial=0.2, backoff_max=1.0)
    drain(reader, 5.0)
    assert gaps(reader.attempts)[:6] == pytest.approx([0.2, 0.4, 0.8, 1.0, 1.0, 1.0])
    assert reader.health().counters["fake_failed"] == len(reader.attempts)


def test_zones_are_reported_offline_once_however_many_attempts_fail() -> None:
    reader, _ = fake(backoff_initial=0.1, backoff_max=0.4)
    events = drain(reader, 3.0)
    assert len(reader.attempts) > 5
    assert [(e.zone, e.state, e.detail) for e in events if isinstance(e, ZoneStatus)] == [
        (0, ZoneState.OFFLINE, "no fake hardware"),
        (1, ZoneState.OFFLINE, "no fake hardware"),
    ]
    assert events == [e for e in events if isinstance(e, ZoneStatus)]


def test_a_lost_link_is_offline_once_and_retried_after_the_initial_backoff() -> None:
    reader, clock = fake(backoff_initial=0.2, backoff_max=5.0)
    drain(reader, 2.0)  # fails at +0, +0.2, +0.6, +1.4: the backoff has grown to 1.6
    reader.reachable = True
    events = drain(reader, 2.0)
    assert [(e.zone, e.state) for e in events if isinstance(e, ZoneStatus)] == [
        (0, ZoneState.ONLINE),
        (1, ZoneState.ONLINE),
    ]
    reader.inbox.append(ZoneEvent(1, UID, True, clock()))
    assert reader.recv(1.0) == ZoneEvent(1, UID, True, clock())

    reader.reachable = False
    reader.break_next = True
    lost_at = clock()
    events = drain(reader, 1.0)
    assert reader.downs == ["cable pulled"]
    assert [(e.zone, e.state, e.detail) for e in events if isinstance(e, ZoneStatus)] == [
        (0, ZoneState.OFFLINE, "fake link lost"),
        (1, ZoneState.OFFLINE, "fake link lost"),
    ]
    after = [t - lost_at for t in reader.attempts if t >= lost_at]
    assert after[:2] == pytest.approx([0.2, 0.6])  # 0.2 after the loss, then 0.4 more: the backoff was reset
    assert reader.health().counters["disconnects"] == 1
    assert reader.present == (None, UID)  # the card stays believed while the link is down


def test_a_link_made_at_the_first_attempt_never_reports_offline() -> None:
    reader, _ = fake()
    reader.reachable = True
    events = drain(reader, 1.0)
    assert [e.state for e in events if isinstance(e, ZoneStatus)] == [ZoneState.ONLINE, ZoneState.ONLINE]
    assert len(reader.attempts) == 1 and "fake_failed" not in reader.health().counters


def test_close_wakes_a_recv_waiting_for_the_next_attempt() -> None:
    reader = FakeLink(backoff_initial=30.0)
    assert drain_real(reader) == 2  # the two OFFLINE statuses; the next attempt is 30 s away
    outcome: list[object] = []

    def wait() -> None:
        started = time.monotonic()
        outcome.append(reader._recv_internal(60.0))
        outcome.append(time.monotonic() - started)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    wait_until(lambda: stack_of(thread)[:1] == ["wait"] and "_recv_internal" in stack_of(thread),
               "the recv to wait for the next attempt")
    reader.close()
    thread.join(5.0)
    assert not thread.is_alive(), "close() did not wake the waiting recv"
    assert outcome[0] is None and isinstance(outcome[1], float) and outcome[1] < 5.0
    assert len(reader.attempts) == 1
    with pytest.raises(ReaderError, match="closed"):
        reader.recv(0.0)


def drain_real(reader: FakeLink) -> int:
    count = 0
    while reader.recv(0.05) is not None:
        count += 1
    return count


@pytest.mark.parametrize(("options", "named"), [({"backoff_initial": 0}, "backoff_initial")])
def test_bad_backoff_is_refused_by_name(options: dict[str, float], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        FakeLink(**options)


# ---------------------------------------------------------------- a port that is there but refused


def test_refused_open_tells_permission_errors_from_the_rest() -> None:
    import errno

    import serial

    from tablepi.readers.link import LinkRefused, refused_open

    eperm = refused_open("/dev/ttyUSB0", serial.SerialException(errno.EPERM, "could not open port /dev/ttyUSB0"))
    assert isinstance(eperm, LinkRefused)
    assert eperm.why.startswith("cannot open /dev/ttyUSB0: [Errno 1]")
    assert "systemctl restart tablepi" in eperm.fix and "modules-load.d" in eperm.fix
    eacces = refused_open("/dev/ttyUSB0", PermissionError(errno.EACCES, "Permission denied"))
    assert isinstance(eacces, LinkRefused) and "dialout" in eacces.fix
    gone = refused_open("/dev/ttyUSB0", serial.SerialException(errno.ENOENT, "no such file"))
    assert gone == "cannot open /dev/ttyUSB0: [Errno 2] no such file"


def test_a_refused_serial_port_is_a_warning_naming_the_fix_once(
    tmp_path, caplog: pytest.LogCaptureFixture  # type: ignore[no-untyped-def]
) -> None:
    """The port exists and the system will not let the service open it (the unit's device policy): no cable helps,
    so it is said at WARNING, once, with the fix; the zones say why they are offline; doctor can ask for it."""
    import errno
    import logging

    import serial

    from tablepi.readers.serial import SerialReader

    port = tmp_path / "ttyUSB0"
    port.touch()
    opened = []

    def refuse(**kwargs: object) -> None:
        opened.append(kwargs["port"])
        raise serial.SerialException(errno.EPERM, f"could not open port {kwargs['port']}: [Errno 1] "
                                                  "Operation not permitted")

    reader = SerialReader(port=str(port), serial_factory=refuse, backoff_initial=0.05, backoff_max=0.05)
    with caplog.at_level(logging.DEBUG, logger="tablepi.readers"):
        events = collect(reader, lambda _: len(opened) >= 4)  # four attempts, each refused
    reader.close()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "tablepi.readers.link"]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    said = warnings[0].getMessage()
    assert f"cannot open {port}" in said and "Errno 1" in said and "fix: " in said and "systemctl restart" in said
    assert reader.refused is not None and reader.refused.why.startswith(f"cannot open {port}")
    offline = [e for e in events if isinstance(e, ZoneStatus)]
    assert offline and all(e.state is ZoneState.OFFLINE and "Errno 1" in e.detail for e in offline)


def test_an_unplugged_reader_stays_a_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    reader, _ = fake(backoff_initial=0.1, backoff_max=0.4)
    with caplog.at_level(logging.DEBUG, logger="tablepi.readers"):
        drain(reader, 2.0)
    assert reader.refused is None
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "tablepi.readers.link"]
