"""The table's MQTT feed: journaled events to a broker, the journal as the outbox (docs/feed.md).

A table publishes every event it journals, in journal order, QoS 1, MQTT v5, from its own thread; the core only
hands it a note of what it journaled and never waits. What the broker acknowledged is remembered in a small cursor
file beside the journal, so after any outage (the network, the broker, the table itself) the table resends from
there. The tournament server (:mod:`tablepi.tournament`) rebuilds the table's matches from these events.

paho-mqtt is an optional dependency (``pip install 'tablepi[feed]'``): it is imported only by the modules that
talk to a broker.
"""

from tablepi.feed.config import FeedConfig
from tablepi.feed.messages import Seating

__all__ = ["FeedConfig", "Seating"]
