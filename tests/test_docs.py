"""The README's tables are the ones the code generates, so documentation and code cannot drift."""

from pathlib import Path

import pytest

from pinochle_env.env import action_table, bounds_table, observation_table, switch_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Every page of the documentation: the README and the Markdown pages under docs/.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize(
    "table", [action_table, observation_table, switch_table, bounds_table], ids=lambda f: f.__name__
)
def test_readme_holds_generated_table(table):
    assert table() in README, f"README is out of date: regenerate the {table.__name__} block"


def test_env_documentation_holds_generated_tables():
    import sys

    import pinochle_env

    for doc in (sys.modules["pinochle_env.env"].__doc__, pinochle_env.env.__doc__):
        for table in (action_table(), observation_table()):
            assert table in doc


def test_ci_runs_the_readme_test_command():
    """The quick start has exactly two commands; CI runs the second (the test command) verbatim."""
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = block.strip().splitlines()
    assert len(commands) == 2
    assert commands[0].endswith("python train.py --config configs/default")
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_readme_layout_names_every_module():
    """The README's Layout block names every module and game package, so it cannot fall behind the tree."""
    root = Path(__file__).resolve().parents[1]
    block = README.split("## Layout", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    words = set(block.replace(",", " ").replace("/", " ").replace("+", " ").split())
    missing = [
        str(path.relative_to(root))
        for package in ("pinochle_env", "agents", "pinochle_train", "pinochle_web")
        for path in sorted((root / package).rglob("*.py"))
        if (path.stem if path.stem != "__init__" else path.parent.name) not in words
    ]
    assert not missing, f"README Layout block does not name: {', '.join(missing)}"


def _figures_module():
    """``benchmarks/figures.py`` as a module (the benchmarks folder is not a package)."""
    import sys

    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        import figures
    finally:
        sys.path.remove(benchmarks)
    return figures


def test_figures_are_the_ones_their_benchmarks_recorded():
    """Each marked figure block of every page (README.md, docs/*.md) is exactly what its results
    files in benchmarks/results/ give (made by ``python benchmarks/figures.py``), and names the commit
    of each measurement, which is in this repository's history where there is one. Each block stands
    on one page only, and every results file is quoted by some block."""
    import subprocess

    figures = _figures_module()
    assert figures.pages() == PAGES
    where: dict[str, list[str]] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        blocks = figures.page_blocks(text)
        assert len(blocks) == text.count("<!-- figures:"), f"{page.name}: a block is repeated or unclosed"
        for name, body in blocks.items():
            where.setdefault(name, []).append(page.name)
            assert body == figures.render(name), f"{page.name}: figures of {name} differ from their results files"
            for source in figures.sources(name):
                data = figures.load(source)
                assert data["commit"][:10] in body
                if (ROOT / ".git").exists():
                    known = subprocess.run(["git", "cat-file", "-e", data["commit"]], cwd=ROOT, capture_output=True)
                    assert known.returncode == 0, f"{source}.json names commit {data['commit']}, not in the history"
    expected = {"env_speed", "bot_ladder", "bot_ladder_milestones", "bot_ladder_cutthroat", "bot_ladder_two_hand"}
    assert expected | {"pimc_profile", "solver_speed", "main_job"} <= set(where), sorted(where)
    assert all(len(pages) == 1 for pages in where.values()), {name: p for name, p in where.items() if len(p) > 1}
    quoted = {source for name in where for source in figures.sources(name)}
    unquoted = sorted(path.stem for path in figures.RESULTS.glob("*.json") if path.stem not in quoted)
    assert not unquoted, f"results files no page quotes: {', '.join(unquoted)}"


def test_a_figure_block_without_its_results_file_is_named(tmp_path, monkeypatch):
    """``benchmarks/figures.py`` says which results file a block lacks, instead of a traceback."""
    figures = _figures_module()
    monkeypatch.setattr(figures, "RESULTS", tmp_path)
    with pytest.raises(SystemExit, match=r"needs benchmarks/results/bot_ladder\.json: run the benchmark"):
        figures.render("bot_ladder")
    with pytest.raises(SystemExit, match=r"needs benchmarks/results/bot_ladder\.json: run the benchmark"):
        figures.render("headline")
    with pytest.raises(SystemExit, match="has no renderer"):
        figures.render("nosuch")
