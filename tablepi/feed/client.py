"""Making a paho-mqtt client the one way tablepi uses it: MQTT v5, VERSION2 callbacks, credentials, TLS.

MQTT v5 because with v3.1.1 a publish the broker refuses (ACL) is acknowledged like a success and dropped: under
v5 the PUBACK carries a reason code, and a table knows (docs/feed.md).
"""

from __future__ import annotations

import ssl
from typing import Any

from paho.mqtt.client import Client
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablepi.feed.config import FeedConfig


def make_client(
    config: FeedConfig, client_id: str, *, will: tuple[str, bytes] | None = None, manual_ack: bool = False
) -> Client:
    """A client for ``config`` (not connected yet). ``will``: a retained QoS 1 message the broker publishes
    if this client vanishes (the table's "offline" status). ``manual_ack``: the receiver acknowledges a message
    itself, once it is stored (the tournament server), so a crash before that makes the broker send it again."""
    client = Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5,
                    manual_ack=manual_ack)
    client.username_pw_set(config.user, config.secret())
    if config.tls:
        client.tls_set(ca_certs=None if config.ca_file is None else str(config.ca_file),
                       tls_version=ssl.PROTOCOL_TLS_CLIENT)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    return client


def session_properties(expiry_seconds: int) -> Properties:
    """CONNECT properties of a persistent session: the broker keeps subscriptions and queued messages this long."""
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    properties.SessionExpiryInterval = expiry_seconds
    return properties


def reason_failed(reason: Any) -> bool:
    """Whether a paho ReasonCode (v5) is a failure; 16 "no matching subscribers" is a success."""
    return bool(getattr(reason, "is_failure", False))
