"""The ``--format/-f`` option of the commands that print rows (and, for kg query, graphs)."""

from __future__ import annotations

import argparse


def add_format_option(parser: argparse.ArgumentParser, *, graphs: bool = False,
                      default: str | None = "table", json_means: str | None = None) -> None:
    """Add ``--format/-f`` to a command that prints rows (and, with ``graphs``, graphs).

    With ``graphs`` the default is None: the caller picks ``table`` for rows and
    ``turtle`` for a graph (see :func:`kg.output.write_result`). With ``json_means`` the
    command prints a summary document as JSON and its rows in the other row formats.
    """
    from ..output import GRAPH_FORMATS, ROW_FORMATS

    rows = ("table, csv, tsv (W3C SPARQL TSV: terms in Turtle form), tab (plain tab-separated text), json (an "
            "array of objects), jsonl (an object a line) or sparql-json (W3C SPARQL 1.1 JSON results)")
    if json_means is not None:
        parser.add_argument("--format", "-f", choices=ROW_FORMATS, default=default,
                            help=f"json: {json_means}; the other formats write rows as kg query writes them "
                                 f"(table, csv, tsv, tab, jsonl, sparql-json; default: {default})")
        return
    choices = ROW_FORMATS + (GRAPH_FORMATS if graphs else ())
    helptext = f"rows as {rows}"
    if graphs:
        helptext += "; graphs (CONSTRUCT) as turtle (default), jsonld, ntriples or rdfxml"
        default = None
    else:
        helptext += f" (default: {default})"
    parser.add_argument("--format", "-f", choices=choices, default=default, help=helptext)
