"""Undo: the actions the game accepted, each with the warnings it raised; undo drops the last and folds the rest.

The game (:class:`~tablepi.table.game.Game`) is rebuilt from the remaining actions, so an undone play leaves no
trace in the rules core; its warnings leave the ledger too. The zones are not touched: they stay as they lie.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.game import Action, Game, Outcome
from tablepi.table.ledger import WarningLedger


@dataclass(slots=True)
class Done:
    """An action the game accepted, with the ids of the warnings it raised (forgotten if it is undone)."""

    action: Action
    warnings: list[int] = field(default_factory=list)


class History:
    """The game and the actions that made it."""

    def __init__(self, rules: HouseRules, dealer: Seat, hand_scan: bool) -> None:
        self._rules = rules
        self._dealer = dealer
        self._hand_scan = hand_scan
        self.game = Game(rules, dealer, hand_scan)
        self._done: list[Done] = []

    def __bool__(self) -> bool:
        """Whether there is anything to undo."""
        return bool(self._done)

    @property
    def last(self) -> Done | None:
        return self._done[-1] if self._done else None

    def do(self, action: Action) -> tuple[Outcome, Done]:
        """Apply ``action``, all or nothing: when the rules refuse it (RulesError propagates), the game is the one
        before it, even if the refusal came halfway through, and nothing is remembered."""
        try:
            outcome = self.game.apply(action)
        except BaseException:
            self.game = self._rebuild()
            raise
        done = Done(action)
        self._done.append(done)
        return outcome, done

    def drop_last(self, ledger: WarningLedger) -> Done:
        """Forget the last action and its warnings; rebuild the game from the actions before it."""
        done = self._done.pop()
        ledger.forget(done.warnings)
        self.game = self._rebuild()
        return done

    def _rebuild(self) -> Game:
        return Game.replay(self._rules, self._dealer, self._hand_scan, (d.action for d in self._done))
