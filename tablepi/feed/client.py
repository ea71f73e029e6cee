"""Making a paho-mqtt client the one way tablepi uses it: MQTT v5, VERSION2 callbacks, credentials, TLS.

MQTT v5 because with v3.1.1 a publish the broker refuses (ACL) is acknowledged like a success and dropped: under
v5 the PUBACK carries a reason code, and a table knows (docs/feed.md).
"""

from __future__ import annotations

import socket
import ssl
from typing import NamedTuple

from paho.mqtt.client import Client
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablepi.errors import ConfigError
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
        client.tls_set_context(tls_context(config))
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    return client


def tls_context(config: FeedConfig) -> ssl.SSLContext:
    """What a table trusts: the broker's certificate must be signed by ``ca_file`` (or, without one, by a CA the
    system trusts) and name the host the table connects to."""
    try:
        return ssl.create_default_context(cafile=None if config.ca_file is None else str(config.ca_file))
    except (OSError, ssl.SSLError) as error:
        raise ConfigError.setting("feed.ca_file", f"cannot read {config.ca_file}: {error}") from None


class TlsProblem(NamedTuple):
    """Why a TLS handshake with the broker failed: ``untrusted`` when its certificate is not signed by the CA the
    table trusts (the wrong ``ca_file``), and the one line to show."""

    untrusted: bool
    text: str


def tls_problem(config: FeedConfig, timeout: float = 4.0) -> TlsProblem | None:
    """Why a TLS handshake with the broker fails (None when it succeeds): paho only says a connection failed, and
    "certificate verify failed" is what a table with the wrong ``ca_file`` must be told."""
    try:
        context = tls_context(config)
    except ConfigError as error:
        return TlsProblem(False, str(error))
    try:
        with socket.create_connection((config.host, config.port), timeout) as sock, \
                context.wrap_socket(sock, server_hostname=config.host):
            return None
    except ssl.SSLCertVerificationError as error:
        return TlsProblem(True, f"the broker's certificate at {config.host}:{config.port} is not trusted "
                                f"(certificate verify failed: {error.verify_message}); feed.ca_file must be the "
                                "CA that signed it")
    except ssl.SSLError as error:
        return TlsProblem(False, f"TLS with {config.host}:{config.port} failed: {error.reason or error}")
    except OSError as error:
        return TlsProblem(False, f"cannot reach {config.host}:{config.port}: {error.strerror or error}")


def session_properties(expiry_seconds: int) -> Properties:
    """CONNECT properties of a persistent session: the broker keeps subscriptions and queued messages this long."""
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    properties.SessionExpiryInterval = expiry_seconds
    return properties
