"""Every XSD built-in datatype through ``kg ingest FILE`` then ``kg export``, and through ``kg validate FILE
--shapes FILE`` against stock pySHACL, as real processes.

The store (pyoxigraph's) keeps numbers, booleans, dates, times and durations by value: thirteen datatypes
come back as another (``"3"^^xsd:byte`` as ``"3"^^xsd:integer``, xsd:dateTimeStamp as xsd:dateTime) and
many texts in their canonical form (``"03"`` as ``"3"``). Nothing of it may happen silently: every literal
comes out of the store as written, or the ingest said so for its datatype, with the count. ``kg validate
FILE`` answers for the file as written, as stock pySHACL does: on every valid literal of every datatype
both conform; on ill-formed ones they agree wherever pySHACL checks the lexical form at all.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from helpers import kg

XSD = "http://www.w3.org/2001/XMLSchema#"
EX = "http://example.org/"
# every built-in datatype of XML Schema 1.1 Part 2 (the abstract anySimpleType and anyAtomicType aside):
# (valid texts, some not in canonical form; ill-formed texts)
TYPES: dict[str, tuple[list[str], list[str]]] = {
    "string": (["abc"], []), "boolean": (["true", "1"], ["yes"]), "decimal": (["1.5", "01.50"], ["1.5.2"]),
    "float": (["1.5", "1e0", "INF"], ["1,5"]), "double": (["1.5", "1.0E2", "NaN"], ["x"]),
    "duration": (["P1D", "PT36H"], ["P"]),
    "dateTime": (["2020-01-01T00:00:00", "2020-01-01T00:00:00.500Z"], ["2020-13-01T00:00:00"]),
    "time": (["10:00:00", "10:00:00.000"], ["25:00:00"]), "date": (["2020-01-01", "2020-01-01Z"], ["2020-02-30"]),
    "gYearMonth": (["2020-01"], ["2020-13"]), "gYear": (["2020"], ["20"]), "gMonthDay": (["--01-01"], ["--13-01"]),
    "gDay": (["---01"], ["---32"]), "gMonth": (["--01"], ["--13"]), "hexBinary": (["0F", "0f"], ["0G"]),
    "base64Binary": (["AA=="], ["A"]), "anyURI": (["http://example.org/x"], []), "QName": (["ex:x"], []),
    "NOTATION": (["ex:x"], []), "normalizedString": (["a b"], ["a\tb"]), "token": (["a b"], [" a"]),
    "language": (["en-GB"], ["en_GB"]), "NMTOKEN": (["a-1"], ["a b"]), "NMTOKENS": (["a b"], []),
    "Name": (["a:b"], ["1a"]), "NCName": (["ab"], ["a:b"]), "ID": (["ab"], ["1a"]), "IDREF": (["ab"], ["1a"]),
    "IDREFS": (["ab cd"], []), "ENTITY": (["ab"], ["1a"]), "ENTITIES": (["ab cd"], []),
    "integer": (["3", "03", "+3"], ["3.0"]), "nonPositiveInteger": (["-3", "0"], ["3"]),
    "negativeInteger": (["-3"], ["0"]), "long": (["3", "-03"], ["9223372036854775808"]),
    "int": (["3"], ["2147483648"]), "short": (["3"], ["32768"]), "byte": (["3", "03", "-128"], ["300", "x"]),
    "nonNegativeInteger": (["3", "0"], ["-3"]), "unsignedLong": (["3"], ["-1"]),
    "unsignedInt": (["3"], ["4294967296"]), "unsignedShort": (["3"], ["65536"]), "unsignedByte": (["3"], ["256"]),
    "positiveInteger": (["3"], ["0"]), "yearMonthDuration": (["P1Y", "P12M"], ["P1D"]),
    "dayTimeDuration": (["P1D", "PT24H"], ["P1Y"]),
    "dateTimeStamp": (["2020-01-01T00:00:00Z"], ["2020-01-01T00:00:00"]),
}
# the datatypes the store keeps as another (docs/guide/validation.md says which)
RETYPED = {**{name: "integer" for name in ("nonPositiveInteger", "negativeInteger", "long", "int", "short", "byte",
                                            "nonNegativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
                                            "unsignedByte", "positiveInteger")}, "dateTimeStamp": "dateTime"}
# ill-formed texts stock pySHACL (rdflib) does not check the lexical form of: kg reports them (SHACL's
# sh:datatype asks for a literal of the lexical space), pySHACL does not
PYSHACL_UNCHECKED = {"gYearMonth-1", "gYear-1", "gMonthDay-1", "gDay-1", "gMonth-1", "normalizedString-1",
                     "token-1", "language-1", "long-2", "dateTimeStamp-1", "Name-1", "NCName-1", "NMTOKEN-1", "ID-1",
                     "IDREF-1", "ENTITY-1", "yearMonthDuration-2", "dayTimeDuration-2"}


def _literals() -> dict[str, pyoxigraph.Literal]:
    """One subject per text: ``<type>-<i>`` (valid texts first)."""
    return {f"{name}-{i}": pyoxigraph.Literal(text, datatype=pyoxigraph.NamedNode(XSD + name))
            for name, (good, bad) in TYPES.items() for i, text in enumerate(good + bad)}


LITERALS = _literals()


def _write(folder: Path) -> tuple[Path, Path]:
    p = pyoxigraph.NamedNode(EX + "p")
    data = folder / "data.nt"
    data.write_bytes(pyoxigraph.serialize([pyoxigraph.Triple(pyoxigraph.NamedNode(EX + key), p, literal)
                                           for key, literal in LITERALS.items()],
                                          format=pyoxigraph.RdfFormat.N_TRIPLES) or b"")
    shapes = folder / "shapes.ttl"
    lines = ["@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> ."]
    for name in TYPES:
        nodes = ", ".join(f"<{EX}{key}>" for key in LITERALS if key.rsplit("-", 1)[0] == name)
        lines.append(f"<{EX}S-{name}> sh:targetNode {nodes} ; sh:property [ sh:path <{EX}p> ; "
                     f"sh:datatype xsd:{name} ] .")
    shapes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data, shapes


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    return _write(tmp_path_factory.mktemp("datatypes"))


def test_the_sweep_holds_every_built_in_datatype():
    assert len(TYPES) == 47 and set(RETYPED) <= set(TYPES)


def test_ingest_then_export_gives_each_literal_as_written_or_the_ingest_said_so(files, tmp_path):
    data, _ = files
    store = str(tmp_path / "store")
    ingest = kg("ingest", str(data), "--store", store)
    assert ingest.returncode == 0, ingest.stderr
    exported = kg("export", "--store", store, "--format", "ntriples")
    assert exported.returncode == 0, exported.stderr
    out = {t.subject.value[len(EX):]: t.object for t in pyoxigraph.parse(exported.stdout.encode("utf-8"),
                                                                         format=pyoxigraph.RdfFormat.N_TRIPLES)
           if t.subject.value.startswith(EX)}
    assert set(out) == set(LITERALS)  # no literal lost
    changed = {key for key, literal in LITERALS.items() if out[key] != literal}
    # what the ingest said: per datatype, how many literals, and as what
    said = {m.group(2): (int(m.group(1)), m.group(3)) for m in re.finditer(
        r"\(literal\): (\d+) literal\(s\) of xsd:(\w+) are stored (?:as xsd:(\w+)|in their canonical form)",
        ingest.stderr)}
    counted = Counter(key.rsplit("-", 1)[0] for key in changed)
    assert {name: n for name, (n, _) in said.items()} == dict(counted)
    retyped = {name: as_type for name, (_, as_type) in said.items() if as_type}
    assert retyped == RETYPED == {key.rsplit("-", 1)[0]: out[key].datatype.value[len(XSD):]
                                  for key in changed if out[key].datatype != LITERALS[key].datatype}
    for key in changed - {k for k in LITERALS if k.rsplit("-", 1)[0] in RETYPED}:
        assert out[key].datatype == LITERALS[key].datatype  # the same datatype, the text in canonical form


def _stock_pyshacl(data: Path, shapes: Path) -> Counter:
    """Stock pySHACL as its own command runs it: the files parsed by rdflib, no inference."""
    import pyshacl

    with warnings.catch_warnings():  # rdflib warns of "yes"^^xsd:boolean: a finding here, as in kg
        warnings.simplefilter("ignore")
        data_graph, shapes_graph = rdflib.Graph().parse(data), rdflib.Graph().parse(shapes)
        _, report, _ = pyshacl.validate(data_graph, shacl_graph=shapes_graph, inference="none")
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    return Counter(str(report.value(r, sh.focusNode))[len(EX):] for r in report.objects(None, sh.result))


def test_kg_validate_file_answers_for_the_file_as_stock_pyshacl_does(files):
    data, shapes = files
    run = kg("validate", str(data), "--shapes", str(shapes), "--format", "json", "--store", str(data.parent / "x"))
    assert run.returncode == 1, run.stderr
    ours = Counter(result["focus"][len(EX):] for result in json.loads(run.stdout)["results"])
    valid = {f"{name}-{i}" for name, (good, _) in TYPES.items() for i in range(len(good))}
    assert not set(ours) & valid  # every valid literal conforms: "3"^^xsd:byte too
    assert set(ours) == set(LITERALS) - valid and set(ours.values()) == {1}  # every ill-formed one is a result
    stock = _stock_pyshacl(data, shapes)
    assert not set(stock) & valid
    assert {key for key in ours if stock[key] != ours[key]} == PYSHACL_UNCHECKED
    assert all(stock[key] == 0 for key in PYSHACL_UNCHECKED)
