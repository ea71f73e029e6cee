"""The table: the physical protocol of a deal at a real table, as a pure state machine (docs/table.md).

Events in (:mod:`tablepi.table.events`), an immutable :class:`TableState` with a prompt and warnings out. Every rule
is the rules core's (:mod:`tablepi.rules`); this package adds what a real table adds: zones, taps and lays,
sweeping, misreads, readers going offline, undo. It imports neither readers nor display.
"""

from tablepi.table.adapter import (
    DeckLookup,
    from_zone_crosstalk,
    from_zone_event,
    from_zone_status,
    lifts_for_snapshot,
)
from tablepi.table.events import (
    Button,
    ButtonName,
    CardLifted,
    CardPlaced,
    ReaderCrosstalk,
    ReaderState,
    ReaderStatus,
    TableEvent,
    Tick,
)
from tablepi.table.machine import Table
from tablepi.table.state import (
    Possible,
    Prompt,
    PromptCode,
    TableConfig,
    TablePhase,
    TableState,
    Target,
    TrickView,
    Zone,
    ZoneCard,
    ZoneCardStatus,
)
from tablepi.table.warnings import TableWarning, TagProblem, WarningCode

__all__ = [
    "Button",
    "ButtonName",
    "CardLifted",
    "CardPlaced",
    "DeckLookup",
    "Possible",
    "Prompt",
    "PromptCode",
    "ReaderCrosstalk",
    "ReaderState",
    "ReaderStatus",
    "Table",
    "TableConfig",
    "TableEvent",
    "TablePhase",
    "TableState",
    "TableWarning",
    "TagProblem",
    "Target",
    "Tick",
    "TrickView",
    "WarningCode",
    "Zone",
    "ZoneCard",
    "ZoneCardStatus",
    "from_zone_crosstalk",
    "from_zone_event",
    "from_zone_status",
    "lifts_for_snapshot",
]
