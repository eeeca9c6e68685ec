"""RDF files read safely, and the RDF formats kg knows: Turtle, N-Triples, N-Quads, TriG, JSON-LD, RDF/XML.

Every reader of RDF files goes through here: ``kg ingest`` (kg.sources), ``kg validate
FILE`` and the user's shapes (kg.validation). The format tables are the one list of
formats that the store, the exports and the outputs name too.

The format comes from the file's extension (case-insensitive) or is given by name.
Before parsing, each file is checked for what could make a parser run away:

* a size over ``MAX_RDF_BYTES`` (a file is parsed whole, so that one with a syntax
  error near its end changes nothing);
* a ``DOCTYPE`` in RDF/XML: no DTD is ever read, so no entity is ever expanded
  (the "billion laughs" never start);
* JSON-LD or RDF/XML nested deeper than ``MAX_RDF_DEPTH`` (their parsers recurse:
  5,000 levels of JSON-LD crash the process, deep RDF/XML takes quadratic time).

Remote JSON-LD contexts are never fetched (pyoxigraph has no document loader here:
such a file is refused). A syntax error is one ``SourceError`` line naming the file,
the line and the column.

>>> quads = read_rdf_bytes(b'<https://e.org/a> <https://e.org/p> "v" .', "a.nt", "ntriples")
>>> [(q.object.value, type(q.graph_name).__name__) for q in quads]
[('v', 'DefaultGraph')]
>>> read_rdf_bytes(b'<https://e.org/a> <https://e.org/p> "v', "a.ttl", "turtle")
Traceback (most recent call last):
...
kg.errors.SourceError: a.ttl: invalid Turtle at line 1 column 37: Unexpected end of file
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pyoxigraph
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat

from .errors import SourceError, UsageError

# A file is parsed whole before anything is written; its quads take about 11 times its
# size in memory (580 bytes a quad), so 64 MiB of TriG is about 1.3 million quads, 0.7 GB.
MAX_RDF_BYTES = 64 * 1024 * 1024
MAX_RDF_DEPTH = 256  # levels of JSON arrays/objects (JSON-LD) or of elements (RDF/XML)

_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),  # before UTF-16: same start
    (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"),
)

RDF_FORMATS: dict[str, RdfFormat] = {
    "turtle": RdfFormat.TURTLE,
    "ntriples": RdfFormat.N_TRIPLES,
    "nquads": RdfFormat.N_QUADS,
    "trig": RdfFormat.TRIG,
    "jsonld": RdfFormat.JSON_LD,
    "rdfxml": RdfFormat.RDF_XML,
}
RDF_EXTENSIONS: dict[str, str] = {
    ".ttl": "turtle", ".nt": "ntriples", ".nq": "nquads", ".trig": "trig", ".jsonld": "jsonld",
    ".json-ld": "jsonld", ".rdf": "rdfxml", ".xml": "rdfxml", ".owl": "rdfxml",
}


def rdf_format_for_path(path: str | os.PathLike) -> str | None:
    """The RDF format a file name implies (by extension, any case); None for other files.

    >>> rdf_format_for_path("dump.TTL"), rdf_format_for_path("catalog.json")
    ('turtle', None)
    """
    return RDF_EXTENSIONS.get(Path(path).suffix.lower())


def rdf_format(name: str) -> str:
    """A format name as given (``turtle`` or an extension such as ``ttl``) -> the format's name.

    >>> rdf_format("TTL"), rdf_format(".owl"), rdf_format("jsonld")
    ('turtle', 'rdfxml', 'jsonld')
    """
    key = name.lower()
    if key in RDF_FORMATS:
        return key
    found = RDF_EXTENSIONS.get(key if key.startswith(".") else "." + key)
    if found is None:
        raise UsageError(f"unknown RDF format {name!r} (use one of {', '.join(RDF_FORMATS)})")
    return found


def read_rdf_file(path: str | os.PathLike, fmt: str | None = None, *, graph: NamedNode | None = None,
                  base_iri: str | None = None, source: str | None = None,
                  rename_blank_nodes: bool = True) -> list[Quad]:
    """Every quad of an RDF file, checked as the module docstring says (``SourceError`` if not).

    ``fmt`` (a name for ``rdf_format``) defaults to the one the extension implies.
    Triples (and the default-graph part of a dataset) go into ``graph`` when it is
    given, else into the default graph; quads of a named graph keep their graph.
    Relative IRIs are resolved against ``base_iri`` (without one they are an error).
    Blank nodes get new labels unique to this read (``rename_blank_nodes``), so that two files'
    ``_:b`` stay two nodes; without it they keep the labels the file gives them (a file's
    ``[]`` gets a new one each read).
    """
    return read_rdf_with_prefixes(path, fmt, graph=graph, base_iri=base_iri, source=source,
                                  rename_blank_nodes=rename_blank_nodes)[0]


def read_rdf_with_prefixes(path: str | os.PathLike, fmt: str | None = None, *, graph: NamedNode | None = None,
                           base_iri: str | None = None, source: str | None = None,
                           rename_blank_nodes: bool = True) -> tuple[list[Quad], dict[str, str]]:
    """:func:`read_rdf_file`, and the prefixes the file declares (Turtle, TriG)."""
    source = source or str(path)
    chosen = rdf_format(fmt) if fmt is not None else rdf_format_for_path(path)
    if chosen is None:
        raise SourceError(source, "not an RDF file name (.ttl, .nt, .nq, .trig, .jsonld, .rdf, .xml, .owl); "
                                  "say which format it is")
    try:
        size = os.stat(path).st_size
        if size > MAX_RDF_BYTES:
            raise SourceError(source, _too_large(size))
        with open(path, "rb") as handle:
            data = handle.read(MAX_RDF_BYTES + 1)
    except OSError as err:
        raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
    return _read(data, source, chosen, graph, base_iri, rename_blank_nodes)


def read_rdf_bytes(data: bytes, source: str, fmt: str, *, graph: NamedNode | None = None,
                   base_iri: str | None = None) -> list[Quad]:
    """``read_rdf_file`` for bytes already read (stdin); ``fmt`` is required."""
    return _read(data, source, fmt, graph, base_iri)[0]


def _read(data: bytes, source: str, fmt: str, graph: NamedNode | None,
          base_iri: str | None, rename_blank_nodes: bool = True) -> tuple[list[Quad], dict[str, str]]:
    fmt = rdf_format(fmt)
    if len(data) > MAX_RDF_BYTES:
        raise SourceError(source, _too_large(len(data)))
    check_start(data, source)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark is harmless (the Turtle parser refuses it)
    if fmt == "rdfxml":
        _check_xml(data, source)
    elif fmt == "jsonld":
        _check_json_depth(data, source)
    try:
        parser = pyoxigraph.parse(data, format=RDF_FORMATS[fmt], base_iri=base_iri,
                                  rename_blank_nodes=rename_blank_nodes)
        parsed = list(parser)
        prefixes = dict(getattr(parser, "prefixes", None) or {})
    except SyntaxError as err:
        raise SourceError(source, _syntax_problem(err, fmt)) from None
    except ValueError as err:
        raise SourceError(source, f"invalid {RDF_FORMATS[fmt].name}: {err}") from None
    if graph is not None:
        parsed = [Quad(q.subject, q.predicate, q.object, graph) if isinstance(q.graph_name, DefaultGraph) else q
                  for q in parsed]
    return parsed, prefixes


def check_start(data: bytes, source: str) -> None:
    """Refuse UTF-16/32 text (by its byte order mark, or NUL bytes in the first 4 KiB):
    JSON and every RDF syntax kg reads are UTF-8."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise SourceError(source, f"is {name} (has a {name} byte order mark); expected UTF-8")
    nul = data.find(0, 0, 4096)
    if nul >= 0:
        # raw NUL bytes are never valid JSON or RDF text: most likely UTF-16/32 without a byte order mark
        raise SourceError(source, f"holds NUL bytes (byte {nul}): UTF-16 or UTF-32 without a byte "
                                  "order mark? expected UTF-8")


def _too_large(size: int) -> str:
    return (f"is {size:,} bytes; an RDF file is read whole, up to {MAX_RDF_BYTES:,} bytes "
            "(kg.rdffiles.MAX_RDF_BYTES): split it into smaller files")


def _syntax_problem(err: SyntaxError, fmt: str) -> str:
    """One line: the format, the line and column when the parser gives them, the reason."""
    name = RDF_FORMATS[fmt].name
    text = str(err.args[0]) if err.args else str(err)
    if "LoadDocumentCallback" in text:
        return f"invalid {name}: refers to a remote JSON-LD context, which kg never fetches (inline the context)"
    reason = text.split(": ", 1)[1] if text.startswith("Parser error") and ": " in text else text
    if err.lineno is not None and err.offset is not None:
        return f"invalid {name} at line {err.lineno} column {err.offset}: {reason}"
    return f"invalid {name}: {reason}"


# ---------------------------------------------------------------------------
# Checks before parsing. Nesting is measured without recursion: the text is reduced to
# its brackets (or tags), then innermost pairs are removed a level per pass.

_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_XML_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # never allowed in XML 1.0
# Every pattern below also matches an unterminated construct (up to the end of the text),
# so no match is ever retried from a later position: each pass is linear in the text.
_XML_SKIPPED = re.compile(rb"<!--.*?(?:-->|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)|<\?.*?(?:\?>|\Z)", re.DOTALL)
_XML_TAG_BODY = rb"(?:[^<>\"'/]|\"[^\"<]*+\"|'[^'<]*+')*+"
_XML_EMPTY = re.compile(rb"<" + _XML_TAG_BODY + rb"/>")
_XML_END = re.compile(rb"</[^<>]*+>")
_XML_START = re.compile(rb"<" + _XML_TAG_BODY + rb">")
_XML_PAIR = re.compile(rb"\x01\x02")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.|\\\Z)*+(?:"|\Z)', re.DOTALL)
_JSON_PAIR = re.compile(rb"\{\}|\[\]")
_KEEP_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_KEEP_MARKS = bytes(b for b in range(256) if b not in b"\x01\x02")


def _check_xml(data: bytes, source: str) -> None:
    doctype = _DOCTYPE.search(data)
    if doctype is not None:
        line = data.count(b"\n", 0, doctype.start()) + 1
        raise SourceError(source, f"RDF/XML with a {doctype.group(1).decode().upper()} declaration (line {line}): "
                                  "refused, kg reads no DTD and expands no entities")
    control = _XML_CONTROL.search(data)
    if control is not None:
        line = data.count(b"\n", 0, control.start()) + 1
        raise SourceError(source, f"invalid RDF/XML: control character {control.group()!r} at byte "
                                  f"{control.start()} (line {line}), not allowed in XML")
    text = _XML_SKIPPED.sub(b"", data)
    text = _XML_EMPTY.sub(b"", text)
    text = _XML_START.sub(b"\x01", _XML_END.sub(b"\x02", text))
    _check_nesting(text.translate(None, _KEEP_MARKS), _XML_PAIR, source, "RDF/XML", "elements")


def _check_json_depth(data: bytes, source: str) -> None:
    brackets = _JSON_STRING.sub(b"", data).translate(None, _KEEP_BRACKETS)
    _check_nesting(brackets, _JSON_PAIR, source, "JSON-LD", "levels of arrays and objects")


def _check_nesting(marks: bytes, pair: re.Pattern[bytes], source: str, name: str, unit: str) -> None:
    """Refuse ``marks`` (opening/closing marks only) nested more than ``MAX_RDF_DEPTH``
    deep. Unbalanced marks are left to the parser, which names the place."""
    for _ in range(MAX_RDF_DEPTH):
        reduced = pair.sub(b"", marks)
        if reduced == marks:
            return
        marks = reduced
    if pair.search(marks):
        raise SourceError(source, f"invalid {name}: nested more than {MAX_RDF_DEPTH} {unit} deep")
