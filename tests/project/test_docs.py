"""The documentation holds what the code and the benchmarks give, so documentation and code cannot
drift: generated tables, figure tables made from results files, links that resolve, a layout map of
paths that exist, and a README that stays a front door."""

import re
from pathlib import Path

import pytest

from pinochle_env.env import action_table, bounds_table, observation_table, switch_table
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The environment's reference page, which holds the tables generated from the code.
ENVIRONMENT = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
#: Every page of the documentation: the README and the Markdown pages under docs/.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize(
    "table", [action_table, observation_table, switch_table, bounds_table], ids=lambda f: f.__name__
)
def test_environment_page_holds_generated_table(table):
    assert table() in ENVIRONMENT, f"docs/environment.md is out of date: regenerate the {table.__name__} block"


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
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_readme_is_a_front_door():
    """The README stays short: the rest of the documentation lives in docs/, reachable from its contents."""
    lines = README.count("\n")
    assert lines <= 300, f"README.md has {lines} lines: move detail to a page under docs/ (at most 300)"
    contents = README.split("## Contents", 1)[1].split("\n## ", 1)[0]
    unlinked = [page.name for page in PAGES[1:] if f"(docs/{page.name})" not in contents]
    assert not unlinked, f"README's Contents does not link: {', '.join(unlinked)}"


def _layout_paths() -> list[str]:
    """The paths the README's layout map names: on each line, the entries before the description
    (comma-separated, two or more spaces before the description), each relative to the folder of
    the nearest line above it that is indented less; ``name/`` is a folder, a bare ``name`` a module
    (``name.py``) or a package."""
    block = README.split("## Layout", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    paths, folders = [], []  # folders: (indent, folder path) of the lines above
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        entries = [entry.strip() for entry in re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split(",")]
        folders = [(level, folder) for level, folder in folders if level < indent]
        parent = folders[-1][1] if folders else ""
        paths += [parent + entry for entry in entries]
        if len(entries) == 1 and entries[0].endswith("/"):
            folders.append((indent, parent + entries[0]))
    return paths


def test_readme_layout_names_paths_that_exist_and_every_package():
    """Every path of the README's layout map exists, and the map names every package and every folder
    inside one, so that the tree a newcomer reads is the tree there is."""
    paths = _layout_paths()
    assert "pinochle_env/kernel/" in paths  # the parser reads nesting
    missing = [path for path in paths if not ((ROOT / path).exists() or (ROOT / f"{path}.py").exists())]
    assert not missing, f"README Layout names paths that do not exist: {', '.join(missing)}"
    named = {(ROOT / path).resolve() for path in paths}
    packages = [path.parent for path in ROOT.glob("*/__init__.py")]
    folders = [
        folder
        for package in packages
        for folder in [package, *package.rglob("*")]
        if folder.is_dir() and "__pycache__" not in folder.parts and not folder.name.endswith(".egg-info")
    ]
    unnamed = sorted(str(folder.relative_to(ROOT)) for folder in folders if folder.resolve() not in named)
    assert not unnamed, f"README Layout does not name: {', '.join(unnamed)}"


# ---------------------------------------------------------------------------------------------- links

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.DOTALL | re.MULTILINE)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _prose(text: str) -> str:
    """A page without its fenced code blocks (what GitHub renders as Markdown, not as code)."""
    return _FENCE.sub("", text)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text (code and link markup removed), lower case,
    without punctuation other than hyphens and underscores, spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown page, repeated headings numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for match in re.finditer(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", _prose(text), re.MULTILINE):
        anchor = github_anchor(match[1])
        found.add(anchor if anchor not in seen else f"{anchor}-{seen[anchor]}")
        seen[anchor] = seen.get(anchor, 0) + 1
    return found


def test_github_anchor_rules():
    assert github_anchor("Three- and two-handed games") == "three--and-two-handed-games"
    assert github_anchor("4.2 Runs and royal marriages") == "42-runs-and-royal-marriages"
    assert github_anchor("The `pimc` bot") == "the-pimc-bot"
    assert github_anchor("The bundled agents' recipes") == "the-bundled-agents-recipes"
    assert anchors("# A\n\n```\n# not a heading\n```\n## A\n") == {"a", "a-1"}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    """Every relative link of the page names a file that exists, and every ``#anchor`` a heading of
    the Markdown page it points into (GitHub's anchor rules)."""
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in _LINK.findall(_CODE.sub("code", _prose(text))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target} (no such heading)")
    assert not broken, f"{page.relative_to(ROOT)} has broken links: {'; '.join(broken)}"


# ---------------------------------------------------------------------------------------------- figures


def _figures_module():
    """``benchmarks/figures.py`` as a module (the benchmarks folder is not a package)."""
    import sys

    benchmarks = str(ROOT / "benchmarks")
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
    assert expected | {"pimc_profile", "solver_speed", "main_job", "headline"} <= set(where), sorted(where)
    assert "headline" in figures.page_blocks(README)
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
