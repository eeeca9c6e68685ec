"""Users' shapes that would crash or hang a validator, through ``kg validate DATA --shapes SHAPES`` as real
processes: an XSD-syntax pattern Python's ``re`` cannot read, a pattern that is no regular expression,
SHACL-SPARQL that would reach the network, shapes nested thousands deep, a recursive shape over a long
chain, and patterns that backtrack without end. Each is an answer or one line with a documented exit code
(docs/guide/validation.md), never a traceback, never a hang, never a connection."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, EXIT_VIOLATIONS
from helpers import kg, one_line_error

PREFIXES = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .\n"
DATA = (PREFIXES + 'ex:a a ex:T ; ex:p "été" .\nex:b a ex:T ; ex:p "été 2" .\n'
        + 'ex:c a ex:T ; ex:p "' + "a" * 100 + '!" .\n')


def kg_validate(tmp_path: Path, shapes: str, *options: str, data: str = DATA,
                timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    (tmp_path / "data.ttl").write_text(data, encoding="utf-8")
    (tmp_path / "shapes.ttl").write_text(PREFIXES + shapes, encoding="utf-8")
    started = time.monotonic()
    run = kg("validate", str(tmp_path / "data.ttl"), "--shapes", str(tmp_path / "shapes.ttl"), "--format", "json",
             "--store", str(tmp_path / "unused"), *options, timeout=timeout)
    return run, time.monotonic() - started


def failing_values(run: subprocess.CompletedProcess) -> list[str]:
    import json

    return sorted(result["value"] for result in json.loads(run.stdout)["results"])


def test_an_xsd_category_escape_is_read_as_xsd_means_it(tmp_path):
    run, _ = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; '
                                   'sh:pattern "^\\\\p{L}+$" ] .')
    assert run.returncode == EXIT_VIOLATIONS, run.stderr
    assert failing_values(run) == ["a" * 100 + "!", "été 2"]  # "été" is letters only


def test_xsd_class_subtraction_and_name_escapes(tmp_path):
    shapes = ('ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:pattern "^[\\\\p{L}-[aeiou]]+$" ; '
              'sh:flags "i" ] .')
    run, _ = kg_validate(tmp_path, shapes, data=PREFIXES + 'ex:a a ex:T ; ex:p "rhythm" .\nex:b a ex:T ; ex:p "Rat" .')
    assert run.returncode == EXIT_VIOLATIONS and failing_values(run) == ["Rat"], run.stderr
    run, _ = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; '
                                   'sh:pattern "^\\\\i\\\\c*$" ] .',
                         data=PREFIXES + 'ex:a a ex:T ; ex:p "x-1.y" .\nex:b a ex:T ; ex:p "1x" .')
    assert run.returncode == EXIT_VIOLATIONS and failing_values(run) == ["1x"], run.stderr


def test_a_pattern_that_is_no_regular_expression_is_one_line_naming_the_shape(tmp_path):
    run, _ = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:pattern "([a-" ] .')
    assert run.returncode == EXIT_INPUT
    line = one_line_error(run, None)
    assert "shapes.ttl: shape ex:S/<http://example.org/p>: sh:pattern \"([a-\"" in line
    assert "character class is not closed" in line


def test_a_pattern_python_reads_but_xsd_does_not_is_refused(tmp_path):
    run, _ = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:pattern "\\\\bx" ] .')
    assert run.returncode == EXIT_INPUT and "\\b is not an escape" in one_line_error(run, None)


@pytest.fixture
def listener():
    """A TCP socket on a free local port that no one should ever connect to."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(5)
    sock.settimeout(0.5)
    yield sock
    sock.close()


def _connected(sock: socket.socket) -> bool:
    try:
        sock.accept()[0].close()
        return True
    except (socket.timeout, TimeoutError):
        return False


@pytest.mark.parametrize("query, word", [
    ("SELECT $this WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}", "SERVICE"),
    ("SELECT $this FROM <http://127.0.0.1:{port}/data.ttl> WHERE {{ $this ?p ?o }}", "FROM"),
])
def test_shacl_sparql_that_would_reach_the_network_is_refused_and_connects_nowhere(tmp_path, listener, query, word):
    text = query.format(port=listener.getsockname()[1])
    run, _ = kg_validate(tmp_path, f'ex:S sh:targetClass ex:T ; sh:sparql [ sh:select "{text}" ] .')
    assert run.returncode == EXIT_INPUT
    assert f"shape ex:S: its SPARQL (sh:select)" in one_line_error(run, None) and f"({word})" in run.stderr
    assert not _connected(listener)


def test_shacl_sparql_without_a_remote_part_runs(tmp_path):
    shapes = ('ex:S sh:targetClass ex:T ; sh:sparql [ sh:select """SELECT $this (?v AS ?value) WHERE { $this '
              '<http://example.org/p> ?v FILTER(CONTAINS(?v, "2")) }""" ] .')
    run, _ = kg_validate(tmp_path, shapes)
    assert run.returncode == EXIT_VIOLATIONS, run.stderr
    assert failing_values(run) == ["été 2"]


@pytest.mark.parametrize("key, depth", [("not", 3000), ("qualifiedValueShape", 500), ("node", 2000)])
def test_shapes_nested_thousands_deep_are_one_line(tmp_path, key, depth):
    if key == "qualifiedValueShape":
        inner = "[ sh:path ex:p ; sh:qualifiedMinCount 1 ; sh:qualifiedValueShape " * depth + "[ sh:minLength 1 ]" \
            + " ]" * depth
        shapes = f"ex:S sh:targetClass ex:T ; sh:property {inner} ."
    else:
        shapes = f"ex:S sh:targetClass ex:T ; sh:{key} " + f"[ sh:{key} " * depth + "[ sh:minCount 1 ]" \
            + " ]" * depth + " ."
    run, _ = kg_validate(tmp_path, shapes)
    assert run.returncode == EXIT_INPUT
    assert "shape ex:S: shapes nest more than 64 deep" in one_line_error(run, None)


def test_a_path_nested_thousands_deep_is_one_line(tmp_path):
    path = "[ sh:inversePath " * 2000 + "ex:p" + " ]" * 2000
    run, _ = kg_validate(tmp_path, f"ex:S sh:targetClass ex:T ; sh:property [ sh:path {path} ; sh:minCount 1 ] .")
    assert run.returncode == EXIT_INPUT and "its sh:path nests more than 50 deep" in one_line_error(run, None)


def test_a_recursive_shape_over_a_long_chain_is_one_line(tmp_path):
    chain = PREFIXES + "".join(f"ex:n{i} ex:next ex:n{i + 1} .\n" for i in range(3000)) + "ex:n0 a ex:T .\n"
    run, _ = kg_validate(tmp_path, "ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:next ; sh:node ex:S ] .",
                         data=chain)
    assert run.returncode == EXIT_INPUT and "its checks nest more than 100 nodes deep" in one_line_error(run, None)


def test_the_nested_quantifier_of_the_report_is_answered_at_once(tmp_path):
    # "^(a+)+$" against 100 a's and "!": Python's re backtracks for ages; the regex module answers
    run, seconds = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; '
                                         'sh:pattern "^(a+)+$" ] .', timeout=60)
    assert run.returncode == EXIT_VIOLATIONS and failing_values(run) == ["a" * 100 + "!", "été", "été 2"]
    assert seconds < 30  # not a timing assert of speed: without a bound this never ends


def test_a_pattern_that_backtracks_without_end_is_refused_naming_the_shape_and_the_value(tmp_path):
    run, seconds = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; '
                                         'sh:pattern "^(a|aa)+$" ] .', timeout=60)
    assert run.returncode == EXIT_INPUT
    line = one_line_error(run, None)
    assert 'sh:pattern "^(a|aa)+$" ran longer than 2 s on one value of <http://example.org/c>' in line


def test_every_validation_has_a_deadline_even_stock_pyshacl(tmp_path):
    # stock pySHACL reads the pattern with Python's re, which backtracks for ages: the alarm stops it
    run, seconds = kg_validate(tmp_path, 'ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; '
                                         'sh:pattern "^(a+)+$" ] .', "--engine", "pyshacl", "--timeout", "3",
                               timeout=60)
    assert run.returncode == EXIT_USAGE
    assert "did not finish within 3 s" in one_line_error(run, None) and run.stdout == ""
    # and shapes that go to pySHACL (SHACL-SPARQL) with such a pattern nested in them
    shapes = ('ex:S sh:targetClass ex:T ; sh:sparql [ sh:select "SELECT $this WHERE { $this ?p ?o FILTER(false) }" ] ; '
              'sh:property [ sh:path ex:p ; sh:pattern "^(a+)+$" ] .')
    run, _ = kg_validate(tmp_path, shapes, "--timeout", "3", timeout=60)
    assert run.returncode == EXIT_USAGE and "did not finish within 3 s" in one_line_error(run, None)


def test_the_timeout_option_is_checked(tmp_path):
    run, _ = kg_validate(tmp_path, "ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .",
                         "--timeout", "0")
    assert run.returncode == EXIT_USAGE and "--timeout must be a positive number" in one_line_error(run, None)
    run, _ = kg_validate(tmp_path, "ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .",
                         "--timeout", "30")
    assert run.returncode == EXIT_OK, run.stderr


def test_the_command_line_defaults_are_the_library_s(capsys):
    from kg.cli import build_parser, main
    from kg.shacl.values import MATCH_SECONDS
    from kg.validation.deadline import DEFAULT_TIMEOUT

    assert build_parser(only="validate").parse_args(["validate"]).timeout == DEFAULT_TIMEOUT
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"default {DEFAULT_TIMEOUT:g})" in said and f"longer than {MATCH_SECONDS:g} s on one value" in said
