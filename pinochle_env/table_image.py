"""The table as an RGB image: what ``render()`` returns for ``render_mode="rgb_array"``.

The image is the text table (``str(game)``, the ``"ansi"`` rendering, which every variant's engine
draws itself) set in a monospaced font on the web app's green felt, so every environment and
variant gets the same picture without a second renderer per game. Every frame has the same shape,
:data:`FRAME_SHAPE`, whatever the table holds (video recorders such as Gymnasium's ``RecordVideo``
need that): lines longer than :data:`COLUMNS` characters (a long auction) wrap, and a table of more
than :data:`ROWS` lines, which no game's table reaches, ends with a line saying how many were left
out.

Speed: matplotlib (a dependency of the base install) draws the printable ASCII characters once per
process, off screen, in the DejaVu Sans Mono font it ships (so the pixels do not depend on the
machine's fonts); a frame is then those glyphs laid out with numpy, well under a millisecond,
where drawing each frame with matplotlib takes a fifth of a second.
"""

from __future__ import annotations

import functools
import textwrap

import numpy as np

COLUMNS = 100
ROWS = 32
CELL = (17, 9)  # a character's cell in pixels (height, width): DejaVu Sans Mono at 10 points, 100 dpi
MARGIN = 12  # pixels around the text


def _round_up_16(pixels: int) -> int:
    """Video encoders want frame sides that are multiples of 16 pixels."""
    return -(-pixels // 16) * 16


FRAME_SHAPE = (_round_up_16(2 * MARGIN + ROWS * CELL[0]), _round_up_16(2 * MARGIN + COLUMNS * CELL[1]), 3)
FELT = (0x1F, 0x6B, 0x45)  # the web app's table (pinochle_web/static/style.css)
INK = "#f6f4ee"
GLYPHS = "".join(map(chr, range(32, 127)))  # printable ASCII; any other character is drawn as "?"


def table_lines(text: str) -> list[str]:
    """The lines of ``text`` as the image sets them: wrapped at :data:`COLUMNS` characters (a
    continuation indented four spaces) and cut to :data:`ROWS` lines, the last saying how many
    lines were left out."""
    lines = [
        wrapped
        for line in text.splitlines()
        for wrapped in (textwrap.wrap(line, COLUMNS, subsequent_indent="    ") or [""])
    ]
    if len(lines) <= ROWS:
        return lines
    return [*lines[: ROWS - 1], f"... ({len(lines) - ROWS + 1} more lines)"]


def table_image(text: str) -> np.ndarray:
    """``text`` drawn as a ``FRAME_SHAPE`` uint8 RGB image, light type on the green felt."""
    codes = np.full((ROWS, COLUMNS), GLYPHS.index(" "), dtype=np.intp)
    for row, line in enumerate(table_lines(text)):
        codes[row, : len(line)] = [GLYPHS.find(char) if char in GLYPHS else GLYPHS.index("?") for char in line]
    height, width = CELL
    block = _glyphs()[codes].transpose(0, 2, 1, 3, 4).reshape(ROWS * height, COLUMNS * width, 3)
    frame = np.empty(FRAME_SHAPE, dtype=np.uint8)
    frame[:] = FELT
    frame[MARGIN : MARGIN + block.shape[0], MARGIN : MARGIN + block.shape[1]] = block
    return frame


@functools.cache
def _glyphs() -> np.ndarray:
    """Every character of :data:`GLYPHS` drawn in its cell: ``(len(GLYPHS), *CELL, 3)`` uint8."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # imported here: only rgb_array needs it
    from matplotlib.figure import Figure

    height, width = CELL
    dpi = 100
    figure = Figure(figsize=(len(GLYPHS) * width / dpi, height / dpi), dpi=dpi, facecolor="#" + bytes(FELT).hex())
    canvas = FigureCanvasAgg(figure)
    for index, char in enumerate(GLYPHS):
        figure.text(
            index / len(GLYPHS), 0.25, char, family="DejaVu Sans Mono", size=10, color=INK, va="baseline", ha="left"
        )
    canvas.draw()
    strip = np.asarray(canvas.buffer_rgba())[:, :, :3]
    return strip.reshape(height, len(GLYPHS), width, 3).transpose(1, 0, 2, 3).copy()
