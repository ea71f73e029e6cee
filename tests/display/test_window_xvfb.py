"""The real app window under a real X server (Xvfb): touches by synthetic X input, pixels compared.

For each layout and rotation, ``tablepi run`` (not headless: it opens its window through the video driver order,
which falls back from kmsdrm to x11 here) plays on simulated readers inside an Xvfb screen the size of the panel.
The test finds the window by the app's pid, grabs it with ImageMagick's ``import``, and compares it with the frame
the renderer draws from the journal's state, turned by the rotation (mean absolute difference, as the reference
screenshots). Then it clicks a trump button with ``xdotool`` at the place the *panel* shows it (a rotated
position), and checks that the journal got that button and that the window now shows the named trumps.

Needs the Debian packages xvfb, xdotool and imagemagick (scripts/setup.sh installs them); skipped without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from tablepi.app.console import Console
from tablepi.app.demo import demo_deck
from tablepi.config import load_config
from tablepi.deck import write_deck_file
from tablepi.display.layout import layout_for
from tablepi.display.render import Renderer, render_surface
from tablepi.display.scene import Scene
from tablepi.display.view import Action
from tablepi.display.viewmodel import build_view
from tests.waits import UNREADABLE, journal_count, journal_state, wait_until

from .test_reference import MAX_MEAN_DIFF, difference

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(shutil.which(t) for t in ("Xvfb", "xdotool", "import")),
                       reason="needs xvfb, xdotool and imagemagick (scripts/setup.sh)"),
]

#: (panel as mounted, rotation, language): the four layouts, and the Touch Display 2 turned both ways.
CASES = [
    ((800, 480), 0, "en"),
    ((720, 1280), 0, "lb"),
    ((720, 1280), 90, "en"),
    ((480, 320), 180, "lb"),
    ((720, 1280), 270, "lb"),
]


@pytest.fixture
def xvfb(request: pytest.FixtureRequest) -> Iterator[tuple[str, tuple[int, int]]]:
    """An X server on a display number the server picks itself (-displayfd), the size of the panel."""
    size: tuple[int, int] = request.param
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size[0]}x{size[1]}x24",
                             "-nolisten", "tcp", "-noreset"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}", size
    finally:
        proc.kill()
        proc.wait(10)


def _grab(display: str, window: str, out: Path) -> pygame.Surface | None:
    done = subprocess.run(["import", "-display", display, "-window", window, str(out)], capture_output=True,
                          timeout=20)
    if done.returncode != 0 or not out.exists():
        return None
    return pygame.image.load(str(out))


@pytest.mark.parametrize(("xvfb", "rotation", "lang"), CASES, indirect=["xvfb"],
                         ids=[f"{s[0]}x{s[1]}-rot{r}-{lang}" for s, r, lang in CASES])
def test_the_window_shows_the_rendered_frame_and_answers_a_touch(
        xvfb: tuple[str, tuple[int, int]], rotation: int, lang: str, tmp_path: Path) -> None:
    display, panel = xvfb
    journal = tmp_path / "journal.sqlite3"
    config_path = tmp_path / "t.toml"
    # A deck enrolled: a table without one says how to enrol it in its bar, over the frame compared here.
    decks = tmp_path / "decks.toml"
    write_deck_file(decks, [demo_deck()])
    config_path.write_text(
        f'[table]\njournal = "{journal}"\ndecks = ["{decks}"]\n[readers]\nbackend = "sim"\n[readers.options]\n'
        f'[controls]\nenabled = false\n[display]\nlanguage = "{lang}"\nfullscreen = false\n'
        f"size = [{panel[0]}, {panel[1]}]\nrotation = {rotation}\n"
        # names for all four seats: the table does not offer its start-of-match sheet over the frame compared here
        'names = { N = "Jang", E = "Marie", S = "Anna", W = "Pit" }\n', encoding="utf-8")
    config = load_config(config_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}
    env.update(DISPLAY=display, SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    log = tmp_path / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tablepi", "run", "--config", str(config_path)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        def started() -> bool:
            assert proc.poll() is None, log.read_text()
            return journal_count(journal) >= 4

        wait_until(started, "the readers and the first frame", 90, every=0.1)
        window = wait_until(lambda: subprocess.run(
            ["xdotool", "search", "--pid", str(proc.pid)], capture_output=True, text=True, timeout=5, env=env
        ).stdout.split()[:1], "the window", 45, every=0.1)[0]
        assert "video driver x11" in log.read_text()  # the fallback order got to x11, and said so
        renderer = Renderer()
        console = Console(lambda gesture: None, lang)
        drawing = (panel[1], panel[0]) if rotation in (90, 270) else panel

        def matches(name: str) -> float | None:
            state = journal_state(journal)
            # as the app's screen makes it: the view, then the console's menu button (or its open sheet) over it
            view = build_view(Scene(state, config.display, console=console.scene(state, config.display)))
            expected = pygame.transform.rotate(render_surface(view, drawing, renderer), -rotation)
            shot = _grab(display, window, tmp_path / f"{name}.png")
            if shot is None or shot.get_size() != panel:
                return None
            diff, _ = difference(shot, expected)
            return diff if diff < MAX_MEAN_DIFF else None

        wait_until(lambda: matches("before") is not None, "the window to show the rendered frame", 45, every=0.1,
                   ignore=UNREADABLE)
        # Touch the hearts button where the panel shows it (turned with the picture).
        rect = layout_for(drawing).buttons.deal[Action.TRUMP_HEARTS]
        cx, cy = rect.center
        w, h = panel
        px, py = {0: (cx, cy), 90: (w - cy, cx), 180: (w - cx, h - cy), 270: (cy, h - cx)}[rotation]
        subprocess.run(["xdotool", "mousemove", "--window", window, str(px), str(py), "click", "1"],
                       env=env, check=True, timeout=10)
        state = wait_until(lambda: (s := journal_state(journal)).deal.trump is not None and s,
                           "the touch to reach the table", 45, every=0.1, ignore=UNREADABLE)
        assert state.deal.trump.symbol == "♥"
        wait_until(lambda: matches("after") is not None, "the window to show hearts as trumps", 45, every=0.1,
                   ignore=UNREADABLE)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize("xvfb", [(480, 320), (720, 1280)], indirect=True, ids=["480x320", "720x1280"])
def test_a_correction_waiting_at_the_match_end_is_closed_on_the_window_and_the_revanche_touched(
        xvfb: tuple[str, tuple[int, int]], tmp_path: Path) -> None:
    """The real window, touched where its hit-map says (the players' robot, tests/robot): a match at one line ends
    with a deal told by hand; a correction is proposed and N+S accept; E+W do not answer. Before: the answer sheet
    had no Close and covered New match and Revanche. Every control drawn meanwhile is a finger's size."""
    from tablepi.display.layout import MIN_TARGET_MM, PANELS, family_for
    from tablepi.rules import Team
    from tablepi.table.state import TablePhase
    from tests.robot.table import Robot, wait

    display, panel = xvfb
    mm = PANELS[family_for(panel)].mm_per_px
    robot = Robot(tmp_path, display, panel, "lb", 0, start_lines=1)

    def big_enough() -> None:
        sides: dict[tuple[str, str | None], int] = {}
        for control in robot.frame()["controls"]:
            _, _, w, h = control["rect"]
            key = (control["name"].casefold(), control["seat"])
            sides[key] = max(sides.get(key, 0), min(w, h))
        small = {name: side for name, side in sides.items() if side * mm < MIN_TARGET_MM}
        assert not small, f"controls under {MIN_TARGET_MM} mm: {small}"

    try:
        wait("the start sheet", lambda: robot.live("key:open:players"))
        big_enough()
        robot.key("cancel")
        robot.touch("open:menu")
        robot.key("open:deal")
        big_enough()
        robot.key("winner:EW")  # the number pad opens
        big_enough()
        robot.key("pad:cancel")
        robot.key("ok")
        wait("the match over", lambda: robot.state().phase is TablePhase.MATCH_OVER)
        robot.touch("open:menu")
        robot.key("open:correct")
        wait("the correction form", lambda: robot.live("key:ok"))
        robot.key("claim")
        robot.key("ok")
        wait("the question to both teams", lambda: robot.live("key:answer:EW:yes"))
        robot.key("answer:NS:yes")
        wait("N+S's answer", lambda: (p := robot.state().match.proposal) is not None and p.waiting == (Team.EW,))
        assert not robot.live("revanche") and not robot.live("new_match")  # under the sheet
        big_enough()
        robot.key("cancel")  # Close: set aside, unanswered
        wait("the sheet closed", lambda: robot.sheet() is None)
        assert robot.live("revanche") and robot.live("new_match")
        big_enough()
        robot.touch("revanche")
        state = wait("the revanche",
                     lambda: (s := robot.state()).phase is TablePhase.TRUMPS and not s.match.slate and s)
        assert state.match.proposal is None  # the question lapsed with its match (archived; the journal begins anew)
    finally:
        robot.close()


@pytest.mark.parametrize("xvfb", [(480, 320), (800, 480), (1280, 720), (720, 1280)], indirect=True,
                         ids=["480x320", "800x480", "1280x720", "720x1280"])
def test_a_reader_dying_under_an_open_sheet_is_told_whole_and_the_keys_stay_whole(
        xvfb: tuple[str, tuple[int, int]], tmp_path: Path) -> None:
    """Issue 20: at 480x320 a warning over a sheet showed only its headline (the dead reader's instructions were
    cut); on the other layouts a warning that needed more lines than the bar grew up over the sheet's keys. The
    real window, touched where its hit-map says: the keyboard is up when E's reader dies; the warning is drawn whole
    where no key is, every key keeps its place and its pixels, and the name is typed on them to the end."""
    from tablepi.display.render import RED
    from tablepi.display.view import ScreenKind, SheetView, View, WarningBanner
    from tablepi.rules import Seat
    from tablepi.table import ReaderState
    from tests.robot.table import SEAT_ZONE, Robot, wait

    display, panel = xvfb
    robot = Robot(tmp_path, display, panel, "fr", 0)
    try:
        robot.readers_online()
        wait("the start sheet", lambda: robot.live("key:open:players"))
        robot.key("open:players")
        wait("the keyboard", lambda: robot.live("key:char:J"))
        before = robot.frame()
        clean = _grab(display, robot.window, tmp_path / "clean.png")
        assert clean is not None and before["warning"] is None
        robot.board.fail(SEAT_ZONE[Seat.E], "absent")
        wait("the reader off", lambda: robot.state().zone(Seat.E).reader is not ReaderState.ONLINE)
        frame = wait("the warning on the screen", lambda: (f := robot.frame())["warning"] and f)
        assert [c["rect"] for c in frame["controls"]] == [c["rect"] for c in before["controls"]]
        text = frame["warning"]
        view = View(ScreenKind.DEAL, sheet=SheetView(frame["sheet"]), warning=WarningBanner("reader_offline", text))
        banner = Renderer().sheet_warning(view, layout_for(panel))
        assert banner is not None and banner.text.fits and banner.headline.fits
        assert " ".join((*banner.headline.lines, *banner.text.lines)).split() == text.split()
        shot = wait("the window with the warning", lambda: (s := _grab(display, robot.window, tmp_path / "w.png"))
                    and s.get_at((banner.bar.x + 1, banner.bar.y + banner.bar.h // 2))[:3] == RED and s)
        # As drawn: the red band (its left edge, where no text is) holds the whole sentence at the readable floor.
        red = [y for y in range(panel[1]) if shot.get_at((1, y))[:3] == RED]
        runs = [list(run) for run in _runs(red)]
        band = max(runs, key=len)
        layout = layout_for(panel)
        renderer = Renderer()
        width = panel[0] - 3 * layout.gap - renderer.text("⚠", layout.warning_min, (0, 0, 0)).get_width()
        need = len(renderer.balanced_wrap(text, layout.warning_min, width)) * \
            renderer.font(layout.warning_min).get_linesize()
        assert len(band) >= need, f"a red band of {len(band)} px for a sentence that needs {need} px: {text!r}"
        for control in frame["controls"]:  # each key as it was: nothing of the warning over it
            x, y, w, h = control["rect"]
            for px, py in ((x + 2, y + h // 2), (x + w - 3, y + h // 2), (x + w // 2, y + 2), (x + w // 2, y + h - 3)):
                assert shot.get_at((px, py)) == clean.get_at((px, py)), (control["name"], (px, py))
        robot.type_name("Jos")
        robot.key("ok")
        wait("Jos seated", lambda: dict(robot.state().names).get(Seat.N) == "Jos")
    finally:
        robot.close()


def _runs(rows: list[int]) -> Iterator[range]:
    """The contiguous runs of ``rows`` (sorted), each as a range."""
    start = previous = None
    for row in rows:
        if start is None:
            start = previous = row
        elif row != previous + 1:  # type: ignore[operator]
            yield range(start, previous + 1)  # type: ignore[operator]
            start = row
        previous = row
    if start is not None:
        yield range(start, previous + 1)  # type: ignore[operator]
