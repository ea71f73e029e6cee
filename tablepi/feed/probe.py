"""What ``tablepi doctor`` asks of the broker: can this table connect, and may it publish where it must — and
only there. MQTT v5 makes both answers visible: CONNACK and PUBACK carry reason codes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tablepi.feed.config import FeedConfig

if TYPE_CHECKING:
    from tablepi.feed.client import TlsProblem
from tablepi.feed.messages import encode

#: A table id that is never a real table's: publishing there must be refused.
OTHER = "doctor-probe-other"


@dataclass
class ProbeResult:
    connected: bool = False
    connect_reason: str = ""
    own: str = ""  # PUBACK reason publishing to the table's own doctor topic ("" when no answer)
    own_ok: bool = False
    other: str = ""  # ... to another table's events topic
    other_refused: bool = False
    errors: list[str] = field(default_factory=list)
    tls: TlsProblem | None = None  # why the TLS handshake failed (None when it succeeded or TLS is off)


def probe(config: FeedConfig, timeout: float = 4.0) -> ProbeResult:
    from tablepi.feed.client import make_client, tls_problem

    result = ProbeResult()
    if config.tls:
        result.tls = tls_problem(config, timeout)  # paho would only say "no answer"
        if result.tls is not None:
            result.errors.append(result.tls.text)
            return result
    connected = threading.Event()
    acks: dict[int, tuple[bool, str]] = {}
    answered = threading.Condition()

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        result.connected = not reason.is_failure
        result.connect_reason = str(reason)
        connected.set()

    def on_publish(client: Any, userdata: Any, mid: int, reason: Any, properties: Any = None) -> None:
        with answered:
            acks[mid] = (bool(reason.is_failure), str(reason))
            answered.notify_all()

    client = make_client(config, f"tablepi-doctor-{config.table}")
    client.on_connect = on_connect
    client.on_publish = on_publish
    try:
        client.connect_async(config.host, config.port, 10)
        client.loop_start()
        if not connected.wait(timeout):
            result.errors.append(f"no answer from {config.host}:{config.port} within {timeout:.0f} s")
            return result
        if not result.connected:
            return result
        body = encode({"table": config.table, "probe": True})
        own = client.publish(f"{config.prefix}/tables/{config.table}/doctor", body, qos=1).mid
        other = client.publish(f"{config.prefix}/tables/{OTHER}/events", body, qos=1).mid
        with answered:
            answered.wait_for(lambda: own in acks and other in acks, timeout)
        if own in acks:
            result.own_ok, result.own = not acks[own][0], acks[own][1]
        if other in acks:
            result.other_refused, result.other = acks[other][0], acks[other][1]
    except OSError as error:
        result.errors.append(str(error))
    finally:
        client.disconnect()
        client.loop_stop()
    return result
