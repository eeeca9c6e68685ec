"""The ``kg`` command line: a thin shell over the library, the only place that prints
messages and owns exit codes.

Exit codes (a contract other tools may rely on):

    0   success
    1   validation found violations (kg validate, kg build --fail-on)
    2   usage error (unknown option, bad value, bad query parameter, an output inside a store
        or an input folder)
    3   unreadable input: a file cannot be read or parsed, or --strict rejected bad records;
        nothing was written
    4   store error (missing, locked or corrupt store; a remote store that cannot be reached or
        answers with what is not SPARQL results)
    5   ingested, but some records or edges were set aside in the quarantine
    6   not found: a query was given an id or name that matches no system (or several);
        the message names close matches or the candidates
    70  an unexpected failure inside kg (a bug): one line names what failed; --debug prints
        the traceback
    130 interrupted

Each command lives in a module of this package (``data``, ``checks``, ``ask``, ``net``) as
``options_<command>`` (its arguments) and ``run_<command>`` (a thin call of one library
function); :mod:`kg.cli.parser` builds only the parser the command line needs.
"""

from __future__ import annotations

import argparse
import sys
import traceback
import warnings
from typing import Sequence

from ..errors import (InputRejected, KgError, NotFound, QueryError, SourceError, StoreError, UsageError, WorkerLost,
                      safe_text)
from .common import (EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_NOT_FOUND, EXIT_OK, EXIT_QUARANTINE, EXIT_STORE,
                     EXIT_USAGE,
                     EXIT_VIOLATIONS, ISSUES_URL, err)
from .parser import build_parser, command_in

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_VIOLATIONS", "EXIT_USAGE", "EXIT_INPUT", "EXIT_STORE",
           "EXIT_QUARANTINE", "EXIT_NOT_FOUND", "EXIT_INTERNAL"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kg`` with ``argv`` (default: the process's arguments); returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(only=command_in(words) or "")
    args = parser.parse_args(words)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    with warnings.catch_warnings():
        _say_kept_files_ignored()
        return _run(args)


def _say_kept_files_ignored() -> None:
    """A file kept beside a store's version that was ignored (kg.store.kept) is said once, one line
    on stderr (inside a ``catch_warnings`` block, which restores Python's own display after)."""
    from ..store import KeptFileIgnored

    warnings.simplefilter("once", KeptFileIgnored)
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *rest: object, **named: object) -> None:
        if issubclass(category, KeptFileIgnored):
            err(f"kg: warning: {safe_text(message, 600)}")
        else:
            shown(message, category, *rest, **named)  # type: ignore[arg-type]

    warnings.showwarning = show


def _run(args: argparse.Namespace) -> int:
    try:
        return args.run(args)
    except (SourceError, InputRejected) as error:
        if isinstance(error, InputRejected):
            for item in error.errors:
                err(f"rejected: {item}")
        err(f"kg: error: {error}")
        return EXIT_INPUT
    except StoreError as error:
        err(f"kg: error: {error}")
        return EXIT_STORE
    except WorkerLost as error:
        err(f"kg: error: {safe_text(error, 400)}")
        return EXIT_INTERRUPTED
    except NotFound as error:
        err(f"kg: error: {safe_text(error, 600)}")
        return EXIT_NOT_FOUND
    except (UsageError, QueryError) as error:
        err(f"kg: error: {safe_text(error, 400)}")
        return EXIT_USAGE
    except KgError as error:
        err(f"kg: error: {safe_text(error, 400)}")
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except RuntimeError as error:  # damaged data met while reading results is a store error, not a bug
        from ..store import storage_error

        damaged = storage_error(error)
        if damaged is None:
            return _internal(error, args)
        err(f"kg: error: {damaged}")
        return EXIT_STORE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug: one line, the traceback only when asked for
        return _internal(error, args)


def _internal(error: BaseException, args: object) -> int:
    """An unexpected failure: one line naming what failed and where, and how to report it."""
    if getattr(args, "debug", False):
        traceback.print_exc()
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    at = f" at {where.filename.rsplit('/kg/', 1)[-1]}:{where.lineno}" if where else ""
    err(f"kg: internal error in 'kg {getattr(args, 'command', '')}': {type(error).__name__}: "
        f"{safe_text(error, 300)}{at} (a bug in kg: rerun with --debug for the traceback, and report it "
        f"with this line and 'kg --version' to {ISSUES_URL})")
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
