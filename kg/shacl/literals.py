"""Literals as SHACL reads them: whether a literal is well-formed for its datatype, and how two compare.

``well_formed`` answers sh:datatype's question (``"abc"^^xsd:integer`` and
``"300"^^xsd:byte`` are ill-formed: a violation of sh:datatype xsd:integer /
xsd:byte). ``compare`` orders two literals as SPARQL's ``<`` does (numbers with
numbers, strings with strings, dates with dates of the same timezone-ness, booleans
with booleans) and answers None when they are not comparable: sh:minInclusive and
its kin, and sh:lessThan, report such a value.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Callable

from pyoxigraph import Literal

from .graph import RDF, XSD
from .xsdregex import NAME_CHARS, NAME_START_CHARS

LANG_STRING = RDF + "langString"

_INTEGERS: dict[str, tuple[int | None, int | None]] = {  # the integer types and their ranges
    "integer": (None, None), "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1),
    "short": (-2**15, 2**15 - 1), "byte": (-128, 127), "nonNegativeInteger": (0, None),
    "positiveInteger": (1, None), "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1), "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 255),
}
_TZ = r"(Z|[+-]\d\d:\d\d)?"
_PATTERNS = {name: re.compile(text) for name, text in {
    "decimal": r"[+-]?(\d+(\.\d*)?|\.\d+)",
    "float": r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN",
    "boolean": r"true|false|1|0",
    "date": r"(-?\d{4,})-(\d\d)-(\d\d)" + _TZ,
    "dateTime": r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?" + _TZ,
    "time": r"(\d\d):(\d\d):(\d\d)(\.\d+)?" + _TZ,
    "gYear": r"-?\d{4,}" + _TZ, "gYearMonth": r"-?\d{4,}-(0[1-9]|1[0-2])" + _TZ,
    "gMonth": r"--(0[1-9]|1[0-2])" + _TZ, "gDay": r"---(0[1-9]|[12]\d|3[01])" + _TZ,
    "gMonthDay": r"--(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])" + _TZ,
    "duration": r"-?P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?",
    "hexBinary": r"([0-9a-fA-F]{2})*",
    "base64Binary": r"(([A-Za-z0-9+/] ?){4})*(([A-Za-z0-9+/] ?){3}[A-Za-z0-9+/]|([A-Za-z0-9+/] ?){2}"
                    r"[AEIMQUYcgkosw048] ?=|[A-Za-z0-9+/] ?[AQgw] ?= ?=)?",
    "language": r"[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*",
    "normalizedString": r"[^\r\n\t]*",
    "token": r"([^\s]+( [^\s]+)*)?",
}.items()}
_NCNAME = f"[{NAME_START_CHARS.replace(':', '')}][{NAME_CHARS.replace(':', '')}]*"
_PATTERNS.update({name: re.compile(text) for name, text in {
    "Name": f"[{NAME_START_CHARS}][{NAME_CHARS}]*", "NCName": _NCNAME, "ID": _NCNAME, "IDREF": _NCNAME,
    "ENTITY": _NCNAME, "IDREFS": f"{_NCNAME}( {_NCNAME})*", "ENTITIES": f"{_NCNAME}( {_NCNAME})*",
    "NMTOKEN": f"[{NAME_CHARS}]+", "NMTOKENS": f"[{NAME_CHARS}]+( [{NAME_CHARS}]+)*",
    "yearMonthDuration": r"-?P(?=\d)(\d+Y)?(\d+M)?",
    "dayTimeDuration": r"-?P(?=\d|T\d)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?",
}.items()})
_PATTERNS["double"] = _PATTERNS["float"]
_PATTERNS["dateTimeStamp"] = re.compile(_PATTERNS["dateTime"].pattern[: -len(_TZ)] + r"(Z|[+-]\d\d:\d\d)")


def well_formed(literal: Literal) -> bool:
    """True when the literal's text is in the lexical space of its datatype (always, for datatypes
    not known here)."""
    datatype = literal.datatype.value
    if not datatype.startswith(XSD):
        return datatype != LANG_STRING or bool(literal.language)
    name, text = datatype[len(XSD):], literal.value
    if name in _INTEGERS:
        return _integer(text, name) is not None
    pattern = _PATTERNS.get(name)
    if pattern is None or pattern.fullmatch(text) is None:
        return pattern is None
    if name in ("date", "dateTime", "dateTimeStamp", "time"):
        return _moment(literal) is not None
    return True


def _integer(text: str, name: str) -> int | None:
    if re.fullmatch(r"[+-]?\d+", text) is None:
        return None
    number = int(text)
    low, high = _INTEGERS[name]
    if (low is not None and number < low) or (high is not None and number > high):
        return None
    return number


def _zone(text: str | None) -> dt.timezone | None:
    if not text:
        return None
    if text == "Z":
        return dt.timezone.utc
    sign = -1 if text[0] == "-" else 1
    return dt.timezone(sign * dt.timedelta(hours=int(text[1:3]), minutes=int(text[4:6])))


def _moment(literal: Literal) -> tuple[str, bool, Any] | None:
    """(kind, has a timezone, a comparable Python value) of a date, dateTime or time; None if ill-formed."""
    name = literal.datatype.value[len(XSD):]
    match = _PATTERNS[name].fullmatch(literal.value)
    if match is None:
        return None
    g = match.groups()
    try:
        if name == "date":
            zone = _zone(g[3])
            return "date", zone is not None, dt.datetime(int(g[0]), int(g[1]), int(g[2]), tzinfo=zone)
        if name == "time":
            zone = _zone(g[4])
            micro = int(float(g[3] or "0") * 1_000_000)
            hour = int(g[0])
            if hour == 24:
                return ("time", zone is not None, dt.datetime(2000, 1, 2, 0, 0, 0, tzinfo=zone)) \
                    if g[1] == "00" and g[2] == "00" and not micro else None
            return "time", zone is not None, dt.datetime(2000, 1, 1, hour, int(g[1]), int(g[2]), micro, tzinfo=zone)
        zone = _zone(g[7])
        micro = int(float(g[6] or "0") * 1_000_000)
        hour, extra = int(g[3]), dt.timedelta(0)
        if hour == 24 and g[4] == "00" and g[5] == "00" and not micro:
            hour, extra = 0, dt.timedelta(days=1)
        moment = dt.datetime(int(g[0]), int(g[1]), int(g[2]), hour, int(g[4]), int(g[5]), micro, tzinfo=zone)
        return "dateTime", zone is not None, moment + extra
    except (ValueError, OverflowError):
        return None


_NUMERIC = {XSD + name for name in (*_INTEGERS, "decimal", "float", "double")}


def _number(literal: Literal) -> Decimal | float | None:
    name = literal.datatype.value[len(XSD):]
    text = literal.value
    if name in _INTEGERS:
        whole = _integer(text, name)
        return Decimal(whole) if whole is not None else None
    if _PATTERNS["float" if name == "double" else name].fullmatch(text) is None:
        return None
    if name == "decimal":
        try:
            return Decimal(text)
        except InvalidOperation:
            return None
    number = float(text.replace("INF", "inf"))
    return None if number != number else number  # NaN compares with nothing


def _key(literal: Literal) -> tuple[str, Any] | None:
    """(kind, value) under which literals of one kind compare; None: comparable with nothing."""
    datatype = literal.datatype.value
    if datatype in _NUMERIC:
        number = _number(literal)
        return ("number", number) if number is not None else None
    if literal.language:
        return None
    if datatype == XSD + "string":
        return "string", literal.value
    if datatype == XSD + "boolean":
        return ("boolean", literal.value in ("true", "1")) if well_formed(literal) else None
    if datatype in (XSD + "date", XSD + "dateTime", XSD + "dateTimeStamp", XSD + "time"):
        moment = _moment(literal)
        if moment is None:
            return None
        kind, zoned, value = moment
        return f"{kind}{'+tz' if zoned else ''}", value
    return ("other " + datatype, literal.value) if well_formed(literal) else None


def compare(a: Any, b: Any) -> int | None:
    """-1, 0 or 1 as ``a`` is less than, equal to or greater than ``b``; None when they do not compare
    (not both literals, kinds that SPARQL does not order against each other, ill-formed text)."""
    if not isinstance(a, Literal) or not isinstance(b, Literal):
        return None
    ka, kb = _key(a), _key(b)
    if ka is None or kb is None or ka[0] != kb[0]:
        return None
    if ka[0].startswith("other "):
        return 0 if ka[1] == kb[1] else None  # a datatype not ordered here: equal or not comparable
    return (ka[1] > kb[1]) - (ka[1] < kb[1])


Test = Callable[[int], bool]
RANGE_TESTS: dict[str, Test] = {  # the outcome of compare(value, limit) each range parameter accepts
    "minInclusive": lambda c: c >= 0, "minExclusive": lambda c: c > 0,
    "maxInclusive": lambda c: c <= 0, "maxExclusive": lambda c: c < 0,
}
