"""``pinochle-demo``: one hand of random play, printed with its hand record; a bad seed refused."""

from __future__ import annotations

import json

import pytest

from pinochle_env.demo import main


def test_the_demo_prints_one_hand_and_its_record(capsys):
    main(["--seed", "3"])
    out = capsys.readouterr().out
    record = json.loads(out.split("hand record:\n", 1)[1])
    assert record["variant"] == "partnership" and len(record["score"]) == 2


def test_a_negative_seed_is_a_usage_error_not_a_traceback(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--seed", "-1"])
    assert exit_info.value.code == 2
    assert "--seed must be >= 0, got -1" in capsys.readouterr().err
