"""The docs site builds, and what the docs say matches the code.

``python -m mkdocs build --strict`` builds the site of ``docs/`` (``mkdocs.yml``) into a
temporary folder: every link resolves, the README's parts that pages include
(``--8<-- "README.md:session"``) exist, the Python API page renders every name of
``kg.__all__`` and ``kg.store.GraphStore`` from the docstrings, and the pages kept beside
what they describe (the ontology's generated documentation, the benchmark report) are in
the site. Every ``kg ...`` command the README and the docs show, in a code block or in
running text, names a command of the parser and only options that command takes. The
session of every console block runs in tests/test_wheel.py (tests/test_readme.py's runner).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

sys.path.insert(0, str(ROOT))
from kg.cli import build_parser  # noqa: E402
from kg.cli.common import EXIT_CODES  # noqa: E402

TOP_LEVEL = {"--help", "-h", "--version"}  # options of kg itself, before any command


def pages() -> list[Path]:
    """The README and every Markdown page of docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


# ---------------------------------------------------------------------------
# Every kg command in the docs, against the parser


def _fenced(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def _indented(text: str) -> list[str]:
    """The lines of indented code blocks (four spaces, after a blank line), continuations joined."""
    outside = re.sub(r"^```.*?^```$", "", text, flags=re.MULTILINE | re.DOTALL)
    lines, found, in_block, previous = outside.splitlines(), [], False, ""
    for line in lines:
        if line.startswith("    ") and (in_block or not previous.strip()) and not line.lstrip().startswith("- "):
            in_block = True
            found.append(line.strip())
        elif line.strip():
            in_block = False
        previous = line
    return found


def _joined(lines: list[str]) -> list[str]:
    """Lines ending in a backslash joined with the next."""
    out: list[str] = []
    for line in lines:
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1] + " " + line.strip()
        else:
            out.append(line)
    return out


def commands_in(text: str) -> list[str]:
    """Every ``kg ...`` command the text shows: console ``$`` lines, lines of other code blocks
    (shell, indented) and code spans in running text."""
    found: list[str] = []
    for language, body in _fenced(text):
        if language in ("console", "bash", "sh", "shell", ""):
            lines = [line[2:] if line.startswith("$ ") else line for line in body.splitlines()
                     if language != "console" or line.startswith("$ ")]
            found += _joined(lines)
    found += _joined(_indented(text))
    outside = re.sub(r"^```.*?^```$", "", text, flags=re.MULTILINE | re.DOTALL)
    found += re.findall(r"`((?:[A-Z_]+=\S+ )*kg [^`]+)`", outside.replace("\n", " "))
    return [c for c in (_kg_part(command) for command in found) if c is not None]


def _kg_part(command: str) -> str | None:
    """The ``kg ...`` part of a shell line: after environment settings, before a comment, a
    pipe or a redirection; None when the line runs no kg."""
    command = command.split("  #", 1)[0].split(" # ", 1)[0]
    words = command.replace("…", "...").split()
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        words.pop(0)
    if not words or words[0] != "kg":
        return None
    text = " ".join(words)
    return re.split(r" (?:\||>|<|&&|&)(?: |$)|&$", text, maxsplit=1)[0].strip()


def _options(parser) -> tuple[dict[str, set[str]], set[str]]:
    """Each command's option strings (common options included), and the command names."""
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return ({name: {s for a in sub._actions for s in a.option_strings} for name, sub in action.choices.items()},
            set(action.choices))


def check_command(command: str, options: dict[str, set[str]]) -> str | None:
    """What is wrong with ``command`` against the parser (None when nothing): an unknown
    command, or an option the command does not take. An upper-case word for the command
    (``kg COMMAND --help``) stands for any command: its options must be common to all."""
    try:
        words = shlex.split(command)[1:]
    except ValueError:
        words = command.split()[1:]
    if not words:
        return None
    verb, rest = words[0], words[1:]
    if verb in TOP_LEVEL:
        return None
    if re.fullmatch(r"[A-Z_<>a-z-]*[A-Z<>][A-Z_<>a-z-]*", verb) and verb not in options:
        allowed = set.intersection(*options.values())
    elif verb in options:
        allowed = options[verb]
    else:
        return f"unknown command {verb!r}"
    for word in rest:
        if word.startswith("-") and word != "-" and not re.fullmatch(r"-\d.*", word):
            option = word.split("=", 1)[0]
            if option not in allowed and not (option.startswith("--") and option.rstrip(".") in allowed):
                return f"kg {verb} takes no option {option!r}"
    return None


def test_every_kg_command_in_the_docs_is_one_the_parser_takes():
    options, _ = _options(build_parser())
    checked, wrong = 0, []
    for page in pages():
        for command in commands_in(page.read_text(encoding="utf-8")):
            checked += 1
            problem = check_command(command, options)
            if problem:
                wrong.append(f"{page.relative_to(ROOT)}: {command}: {problem}")
    assert not wrong, "\n".join(wrong)
    assert checked > 150  # code blocks and running text of every page


def test_the_console_commands_parse_whole():
    """The session's commands (they also run: tests/test_wheel.py) parse with their values."""
    parser = build_parser()
    for page in pages():
        for language, body in _fenced(page.read_text(encoding="utf-8")):
            for line in body.splitlines() if language == "console" else []:
                command = _kg_part(line[2:]) if line.startswith("$ ") else None
                if command:
                    parser.parse_args(shlex.split(command)[1:])


def test_the_check_notices_a_wrong_command_and_a_wrong_option():
    options, _ = _options(build_parser())
    assert check_command("kg query search --param text=x -f json", options) is None
    assert check_command("kg COMMAND --help", options) is None
    assert check_command("kg serch -p text=x", options) == "unknown command 'serch'"
    assert check_command("kg export --strict", options) == "kg export takes no option '--strict'"
    assert commands_in("Run `kg validate --record ID` or\n\n    KG_X=1 kg push --endpoint URL \\\n"
                       "        --user dba   # a comment\n\n```console\n$ kg log -f csv | cut -d, -f1\nkg out\n```\n"
                       ) == ["kg log -f csv", "KG_X=1 kg push --endpoint URL --user dba".split(" ", 1)[1],
                             "kg validate --record ID"]


# ---------------------------------------------------------------------------
# What the pages say, against the code


def test_the_errors_page_gives_every_exit_code():
    text = (DOCS / "guide" / "errors.md").read_text(encoding="utf-8")
    assert sorted(int(code) for code in re.findall(r"^\| (\d+) \|", text, re.MULTILINE)) == sorted(EXIT_CODES)


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_includes_the_ontology_docs_and_the_benchmarks_from_where_they_live():
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[test]')")
    included = _hooks().included_paths()
    for path in ("ontology/README.md", "ontology/diagram.svg", "benchmarks/REPORT.md", "examples/protocol-adoption.png"):
        assert path in included
    assert not any((DOCS / path).exists() for path in included), "included, not copied into docs/"


def test_the_ontology_page_is_generated_and_up_to_date():
    """The site's ontology page is ontology/README.md as python -m kg.ontodoc generates it from the ontology now."""
    from kg import ontodoc

    generated = {path.name: text for path, text in ontodoc.render(ROOT / "ontology" / "kg.ttl").items()}
    assert (ROOT / "ontology" / "README.md").read_text(encoding="utf-8") == generated["README.md"], \
        "ontology/README.md is stale: run python -m kg.ontodoc"


def test_the_examples_are_checkout_scripts_in_the_sdist():
    """The docs present examples/ as checkout scripts: the sdist carries them (and the docs), each
    script says so, and the guide page lists every script."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    build = config["tool"]["hatch"]["build"]["targets"]
    assert {"examples", "docs", "mkdocs.yml", "README.md"} <= set(build["sdist"]["include"])
    assert build["wheel"]["packages"] == ["kg"]  # the wheel holds the package only
    guide = (DOCS / "guide" / "examples.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "examples").glob("*.py")):
        assert "A checkout script" in script.read_text(encoding="utf-8"), script.name
        assert f"[`{script.name}`](../examples/{script.name})" in guide, script.name


def test_the_readme_parts_the_docs_include_exist():
    readme = README.read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        for name in re.findall(r'^--8<-- "README\.md:(\w+)"$', page.read_text(encoding="utf-8"), re.MULTILINE):
            assert f"<!-- --8<-- [start:{name}] -->" in readme and f"<!-- --8<-- [end:{name}] -->" in readme


# ---------------------------------------------------------------------------
# The build


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[test]' brings it)")
    pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python is not installed")
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-6000:]
    return folder


def _text(page: Path) -> str:
    """A built page's text: tags dropped (code is highlighted token by token), entities read."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_the_site_builds_strict(site):
    for page in ("index.html", "guide/build-and-query/index.html", "guide/history/index.html",
                 "guide/errors/index.html", "reference/cli/index.html", "reference/python/index.html",
                 "internals/scale/index.html", "ontology/index.html", "benchmarks/REPORT/index.html"):
        assert (site / page).is_file(), page
    session = _text(site / "guide/build-and-query/index.html")
    assert "$ kg build" in session and "--8<--" not in session  # the README's session, included


def test_the_python_api_page_renders_the_public_api(site):
    import kg

    html = (site / "reference/python/index.html").read_text(encoding="utf-8")
    for name in kg.__all__:
        anchor = "kg.store.GraphStore" if name == "GraphStore" else f"kg.{name}"
        assert f'id="{anchor}"' in html, name
    assert ">>> import kg" in _text(site / "reference/python/index.html")  # the doctests, as code
    assert "<blockquote>" not in html  # not read as Markdown quotes


def test_the_site_fetches_nothing(site):
    """No remote script, stylesheet or font: the site reads the same offline."""
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="(?:https?:)?//', text), page
