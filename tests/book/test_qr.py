"""The QR code on the table's screen: drawn on the slate between deals when the pages are on, read by a real
decoder (zbarimg) to the address the table serves its pages at."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tablepi.app.build import open_table
from tablepi.app.inputs import Touch
from tablepi.config import load_config
from tablepi.display.keys import KeyTouch, MenuTouch, Opening, OpenKey, Word, key_named
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TablePhase
from tests.app.test_commands import sim_config
from tests.waits import wait_until


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _decode(png: Path) -> str:
    if shutil.which("zbarimg") is None:
        pytest.skip("zbarimg is not installed (scripts/setup.sh installs zbar-tools)")
    done = subprocess.run(["zbarimg", "--quiet", "--raw", str(png)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("size", [(800, 480), (480, 320), (720, 1280)])
def test_the_slate_shows_a_qr_code_that_opens_the_pages(tmp_path: Path, size: tuple[int, int]) -> None:
    port = _free_port()
    config = load_config(sim_config(tmp_path, f"[display]\nsize = [{size[0]}, {size[1]}]\nlanguage = \"en\"\n"
                                              f"[web]\nenabled = true\nhost = \"127.0.0.1\"\nport = {port}\n"))
    running = open_table(config, headless=True, control=False)
    try:
        screen = running.app.screen
        assert screen is not None and running.app.console is not None and running.app.console.phone is not None
        table = running.app.table
        for event in simulate_match(3).events:  # play until the first deal is scored
            table.feed(dataclasses.replace(event, time=event.time + 1.0))
            if table.state.match.slate and table.state.phase is not TablePhase.PLAY and not table.state.deal.tricks:
                break
        assert table.state.match.slate
        scene = running.app.scene()
        assert scene is not None and scene.phone is not None
        screen.show(scene)
        import pygame

        png = tmp_path / "slate.png"
        pygame.image.save(screen.panel_image(), str(png))  # type: ignore[attr-defined]
        address = _decode(png)
        assert address == f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(address, timeout=10) as answer:
            assert answer.status == 200 and "At the table" in answer.read().decode("utf-8")
    finally:
        running.close()


def test_no_pages_and_no_code_unless_enabled(tmp_path: Path) -> None:
    running = open_table(load_config(sim_config(tmp_path)), headless=True, control=False)
    try:
        assert running.app.console is not None and running.app.console.phone is None
        scene = running.app.scene()
        assert scene is not None and scene.phone is None
    finally:
        running.close()


def test_menu_on_your_phone_shows_the_code_large(tmp_path: Path) -> None:

    port = _free_port()
    config = load_config(sim_config(tmp_path, "[display]\nlanguage = \"lb\"\n"
                                              f"[web]\nenabled = true\nhost = \"127.0.0.1\"\nport = {port}\n"))
    running = open_table(config, headless=True, control=False)
    try:
        app = running.app
        state = app.table.state
        console = app.console
        assert console is not None
        assert console.touch(MenuTouch(), state)
        assert OpenKey(Opening.PHONE) in console.panel.live_keys()  # type: ignore[union-attr]
        assert console.touch(KeyTouch(key_named("open:phone")), state)
        app.screen.show(app.scene())  # type: ignore[union-attr, arg-type]
        import pygame

        png = tmp_path / "menu.png"
        pygame.image.save(app.screen.panel_image(), str(png))  # type: ignore[union-attr]
        assert _decode(png) == f"http://127.0.0.1:{port}/"
        assert console.touch(KeyTouch(key_named("cancel")), state) and console.panel is None
    finally:
        running.close()


def test_the_menu_of_a_table_without_pages_has_no_phone_entry(tmp_path: Path) -> None:

    running = open_table(load_config(sim_config(tmp_path)), headless=True, control=False)
    try:
        console = running.app.console
        assert console is not None and console.touch(MenuTouch(), running.app.table.state)
        assert OpenKey(Opening.PHONE) not in console.panel.live_keys()  # type: ignore[union-attr]
    finally:
        running.close()


def test_a_player_opts_in_with_a_touch_as_he_names_himself(tmp_path: Path) -> None:
    """With the pages on, the name keyboard has "My name on the phones" (off by default); on, the book names him."""
    from tablepi.book.store import Book

    config = load_config(sim_config(tmp_path, "[display]\nlanguage = \"en\"\n"
                                              f"[web]\nenabled = true\nhost = \"127.0.0.1\"\nport = {_free_port()}\n"))
    running = open_table(config, headless=True, control=False)
    try:
        app = running.app
        console = app.console
        assert console is not None
        state = app.table.state
        assert console.touch(MenuTouch(), state) and console.touch(KeyTouch(key_named("open:players")), state)
        board = console.panel
        assert board is not None and Word.PUBLIC in board.live_keys() and board.public is False  # type: ignore[union-attr]
        for key in ("char:J", "char:a", "char:n", "char:g", "public", "ok"):
            app.handle(Touch(KeyTouch(key_named(key))))
        for key in ("char:M", "char:a", "char:r", "char:i", "char:e", "ok"):  # the next seat: not opted in
            app.handle(Touch(KeyTouch(key_named(key))))
        app.step(0.2)
        assert dict(app.table.state.names).get(next(iter(dict(app.table.state.names)))) == "Jang"
        path = tmp_path / "players.sqlite3"

        def public() -> bool:
            with Book(path) as book:
                jang = book.player("Jang")
                return jang is not None and jang.public

        wait_until(public, "Jang's opt-in in the book", every=0.1)
        with Book(path) as book:
            jang, marie = book.player("Jang"), book.player("Marie")
            assert jang is not None and jang.public
            assert marie is None or not marie.public
    finally:
        running.close()
