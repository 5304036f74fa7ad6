"""``render_mode="rgb_array"``'s picture of the table: a fixed frame of monospaced cells, long lines
wrapped, an overlong table cut with a note, any character drawn."""

import numpy as np

from pinochle_env.table_image import CELL, COLUMNS, FELT, FRAME_SHAPE, MARGIN, ROWS, table_image, table_lines


def cell(image: np.ndarray, row: int, column: int) -> np.ndarray:
    """The pixels of one character cell."""
    top, left = MARGIN + row * CELL[0], MARGIN + column * CELL[1]
    return image[top : top + CELL[0], left : left + CELL[1]]


def inked(image: np.ndarray, row: int, column: int) -> bool:
    return bool((cell(image, row, column) != FELT).any())


def test_text_is_laid_out_in_fixed_cells_on_the_felt():
    image = table_image("AB\n B")
    assert image.shape == FRAME_SHAPE and image.dtype == np.uint8
    np.testing.assert_array_equal(cell(image, 0, 1), cell(image, 1, 1))  # the same glyph wherever it stands
    assert not np.array_equal(cell(image, 0, 0), cell(image, 0, 1))
    assert [inked(image, 0, 0), inked(image, 0, 1), inked(image, 1, 0), inked(image, 1, 1)] == [True, True, False, True]
    rest = image.copy()
    rest[MARGIN : MARGIN + 2 * CELL[0], MARGIN : MARGIN + 2 * CELL[1]] = FELT
    assert (rest == FELT).all()  # nothing drawn outside the text's cells


def test_long_lines_wrap_and_the_frame_keeps_its_shape():
    auction = "auction: " + ", ".join(f"p{k % 4} bid {250 + 10 * k}" for k in range(76))
    lines = table_lines(auction)
    assert len(lines) > 1 and all(len(line) <= COLUMNS for line in lines)
    assert all(line.startswith("    ") for line in lines[1:]) and " ".join(lines).split() == auction.split()
    assert table_image(auction).shape == table_image("").shape == FRAME_SHAPE


def test_an_overlong_table_ends_with_a_note_of_what_is_left_out():
    lines = table_lines("\n".join(f"line {k}" for k in range(ROWS + 5)))
    assert len(lines) == ROWS and lines[-2] == f"line {ROWS - 2}" and lines[-1] == "... (6 more lines)"
    assert table_lines("\n".join(["x"] * ROWS)) == ["x"] * ROWS


def test_characters_outside_ascii_are_drawn_as_question_marks():
    np.testing.assert_array_equal(table_image("\u2660 10"), table_image("? 10"))
