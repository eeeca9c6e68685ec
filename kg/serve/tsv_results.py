"""Solutions read through pyoxigraph's TSV writer: capped in rows, without a Python object a row.

A query worker must refuse a result of more than ``max_rows`` rows (never cut it short) and
stop reading once it knows. Taking the rows one by one into Python objects does that, at a
cost per row and per value. Here pyoxigraph writes the solutions as TSV into a writer that
counts lines (a TSV row is one line: a newline inside a value is written ``\\n``) and stops
the writer, and with it the evaluation, one row past the cap. The TSV is then read back by
pyoxigraph and written in the format asked for, so every byte of the answer is pyoxigraph's
own serialisation.

>>> from pyoxigraph import Store
>>> tsv_solutions(Store().query("SELECT ?x WHERE { VALUES ?x { 1 2 3 } }"), 10, None)
b'?x\\n1\\n2\\n3\\n'
>>> tsv_solutions(Store().query("SELECT ?x WHERE { VALUES ?x { 1 2 3 } }"), 10, 2)
b'?x\\n1\\n2\\n'
"""

from __future__ import annotations

from typing import IO, Any, cast

from pyoxigraph import QueryResultsFormat, QuerySolutions

from .replies import Reply

STREAMED = ("json", "csv", "tsv")  # the solution formats answered from the TSV


class _Enough(Exception):
    """Raised by :class:`_TsvLines` to stop pyoxigraph's writer (and the evaluation) early."""


class _TsvLines:
    """A binary writer for pyoxigraph's TSV results writer that keeps the header and at least
    ``rows`` rows, then stops the writer by raising."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.chunks: list[bytes] = []
        self.lines = 0
        self.stopped = False

    def write(self, data: Any) -> int:
        if self.stopped:  # the writer's last flush, after the stop
            return len(data)
        chunk = bytes(data)
        self.chunks.append(chunk)
        self.lines += chunk.count(b"\n")
        if self.lines > self.rows:  # the header line and ``rows`` rows are in
            self.stopped = True
            raise _Enough()
        return len(chunk)

    def flush(self) -> None:
        pass

    def text(self) -> tuple[bytes, int]:
        """The header and at most ``rows`` rows, and how many rows that is."""
        data = b"".join(self.chunks)
        if not self.stopped:
            return data, max(0, data.count(b"\n") - 1)
        lines = data.split(b"\n", self.rows + 1)[:self.rows + 1]  # the header and ``rows`` whole rows
        return b"\n".join(lines) + b"\n", self.rows


def tsv_solutions(result: QuerySolutions, max_rows: int, row_cap: int | None) -> bytes:
    """The solutions as pyoxigraph's TSV: the first ``row_cap`` rows when given, else all
    of them; more than ``max_rows`` rows is refused (422), never cut short."""
    keep = row_cap if row_cap is not None and row_cap <= max_rows else max_rows + 1
    writer = _TsvLines(keep)
    try:
        result.serialize(cast(IO[bytes], writer), format=QueryResultsFormat.TSV)
    except _Enough:
        pass
    data, rows = writer.text()
    if rows > max_rows:
        raise Reply(422, "result-too-large",
                    f"the result has more than {max_rows} rows (the server's --max-rows); "
                    f"add LIMIT {max_rows} or narrow the query", maxRows=max_rows)
    return data
