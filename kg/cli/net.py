"""Commands that talk over the network: serve (a SPARQL endpoint) and push (to a remote store)."""

from __future__ import annotations

import argparse
import os
import shlex
import signal

from ..errors import StoreError, UsageError
from .common import (EXIT_INTERRUPTED, EXIT_OK, EXIT_STORE, add_queries_option, err, existing_store, iris,
                     progress_printer, query_folders)


def options_serve(p: argparse.ArgumentParser) -> None:
    from ..serve import (DEFAULT_ANSWER_CACHE_MB, DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES,
                         DEFAULT_MAX_ROWS, DEFAULT_PORT, DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB)

    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}, this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"stop a query after this long and answer 504 (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, metavar="N",
                   help=f"refuse results of more than N rows or triples with 422 (default {DEFAULT_MAX_ROWS})")
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"refuse answers larger than N bytes with 422 (default {DEFAULT_MAX_BYTES}); the dumps "
                        "of /store are streamed, not held to it")
    p.add_argument("--answer-cache-mb", type=int, default=DEFAULT_ANSWER_CACHE_MB, metavar="MIB",
                   help="answers kept in memory for the store's current generation, given again to the same "
                        f"request (default {DEFAULT_ANSWER_CACHE_MB}; 0 keeps none: a benchmark's cold figures)")
    p.add_argument("--max-request-bytes", type=int, default=DEFAULT_MAX_REQUEST_BYTES, metavar="N",
                   help=f"refuse larger request bodies with 413 (default {DEFAULT_MAX_REQUEST_BYTES})")
    p.add_argument("--workers", type=int, metavar="N", help="query worker processes (default: CPUs, 2 to 8)")
    p.add_argument("--worker-memory-mb", type=int, default=DEFAULT_WORKER_MEMORY_MB, metavar="MIB",
                   help=f"memory cap of each query worker; a query past it gets 500 (default {DEFAULT_WORKER_MEMORY_MB})")
    p.add_argument("--allow-update", action="store_true",
                   help="accept SPARQL Update at /update from clients with the bearer token")
    p.add_argument("--token", help="the bearer token for updates (default: $KG_TOKEN)")
    p.add_argument("--cors", metavar="ORIGIN", help="allow cross-origin requests from this one origin (default: none)")
    p.add_argument("--allowed-host", action="append", metavar="HOST",
                   help="a Host header to answer (repeatable; default: localhost, 127.0.0.1 and ::1 when bound "
                        "to loopback, which turns DNS-rebinding pages away; any when bound elsewhere); behind a "
                        "proxy, the public host name")
    p.add_argument("--quiet", "-q", action="store_true", help="no access log on stderr")
    p.add_argument("--metrics", action="store_true",
                   help="serve /metrics: requests, latency, timeouts, worker replacements, cache hits and the store's "
                        "generation in the Prometheus text format (needs the [metrics] extra; off by default)")
    add_queries_option(p)


def run_serve(args: argparse.Namespace) -> int:
    from .. import serve

    if args.store == ":memory:":
        raise UsageError("kg serve needs a store directory (run 'kg build' first)")
    token = args.token or os.environ.get("KG_TOKEN") or None
    if args.token:
        err("kg serve: note: a token given with --token is visible to other local users; prefer KG_TOKEN")
    if not serve.is_loopback(args.host):
        err(f"kg serve: warning: listening on {args.host}, reachable from other machines; "
            "queries can still be expensive, so keep the limits")

    folders = tuple(query_folders(args))

    def ready(server: "serve.Server") -> None:
        mode = "updates allowed with the bearer token at /update" if args.allow_update else "read-only"
        err(f"kg serve: SPARQL endpoint {server.url}/sparql, query page {server.url}/ "
            f"({server.pool.size} workers, {args.timeout:g} s timeout, max {args.max_rows} rows, {mode})")
        err(f"kg serve: system pages at {server.url}/id/system/<id>; press Ctrl-C to stop")
        if args.metrics:
            err(f"kg serve: metrics at {server.url}/metrics (Prometheus text format)")
        if folders:
            err(f"kg serve: your named queries from {', '.join(folders)}: forms at {server.url}/queries/<name>")

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        serve.serve(args.store, ready=ready, base=args.base, host=args.host, port=args.port,
                    timeout=args.timeout, max_rows=args.max_rows, max_bytes=args.max_bytes,
                    answer_cache_mb=args.answer_cache_mb, max_request_bytes=args.max_request_bytes,
                    workers=args.workers or 0, worker_memory_mb=args.worker_memory_mb,
                    allow_update=args.allow_update, token=token, cors=args.cors,
                    log=None if args.quiet else err, queries=folders, metrics=args.metrics,
                    **({"allowed_hosts": tuple(args.allowed_host)} if args.allowed_host else {}))
    except KeyboardInterrupt:
        err("kg serve: stopped")
    except OSError as error:
        raise StoreError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    return EXIT_OK


def options_push(p: argparse.ArgumentParser) -> None:
    from ..pushes import AUTH_METHODS, DEFAULT_BATCH_BYTES
    from ..pushes import DEFAULT_TIMEOUT as PUSH_TIMEOUT

    p.add_argument("--endpoint", required=True, metavar="URL", help="SPARQL query endpoint (used to verify counts)")
    p.add_argument("--update-endpoint", metavar="URL", help="SPARQL Update endpoint (default: --endpoint)")
    p.add_argument("--graph-store", metavar="URL",
                   help="send each graph with a Graph Store Protocol PUT to URL?graph=<iri> instead of updates")
    p.add_argument("--user", help="user name for HTTP authentication")
    p.add_argument("--password", help="password (default: $KG_PUSH_PASSWORD)")
    p.add_argument("--auth", choices=AUTH_METHODS, default="basic", help="HTTP authentication scheme (default basic)")
    p.add_argument("--timeout", type=float, default=PUSH_TIMEOUT, metavar="SECONDS",
                   help=f"timeout of each HTTP request (default {PUSH_TIMEOUT:g})")
    p.add_argument("--batch-kib", type=int, default=DEFAULT_BATCH_BYTES // 1024, metavar="KIB",
                   help=f"largest SPARQL Update request, in KiB (default {DEFAULT_BATCH_BYTES // 1024})")
    p.add_argument("--graph-param", default="graph", metavar="NAME",
                   help="query parameter naming the graph in Graph Store Protocol URLs "
                        "(default: graph, as the protocol says; Virtuoso also takes graph-uri)")
    p.add_argument("--prune", action="store_true",
                   help="also drop remote graphs under the data's graph/ namespace that the store no longer has")
    p.add_argument("--no-verify", action="store_true", help="skip counting the quads on the remote side afterwards")
    p.add_argument("--resume", action="store_true",
                   help="finish an interrupted push: send only the graphs it had not sent (its journal, kept "
                        "beside this store version, says which); without a journal, every graph")


def run_push(args: argparse.Namespace) -> int:
    from ..pushes import PushStopped, push

    store = existing_store(args)
    password = args.password if args.password is not None else os.environ.get("KG_PUSH_PASSWORD")
    if args.password is not None:
        err("kg push: note: a password given with --password is visible to other local users; "
            "prefer KG_PUSH_PASSWORD")
    how = f"Graph Store Protocol PUTs to {args.graph_store}" if args.graph_store else \
        f"SPARQL Update to {args.update_endpoint or args.endpoint}"

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # a kill (SIGTERM) stops the push as Ctrl-C does: it says how far it got

    signal.signal(signal.SIGTERM, stop)
    try:
        report = push(store, args.endpoint, update_endpoint=args.update_endpoint, graph_store=args.graph_store,
                      user=args.user, password=password if args.user is not None else None, auth=args.auth,
                      timeout=args.timeout, batch_bytes=args.batch_kib * 1024, verify=not args.no_verify,
                      prune=args.prune, iris=iris(args), graph_param=args.graph_param, resume=args.resume,
                      progress=progress_printer("push (quads)"))
    except PushStopped as stopped:
        err(f"kg push: {'interrupted' if stopped.interrupted else 'error: ' + stopped.cause}")
        err(f"kg push: {stopped.progress()}")
        err(f"kg push: to finish, sending only what is missing: {_resume_command(args)}"
            + ("" if stopped.journal else " (no journal could be kept beside this store: it sends every graph)"))
        return EXIT_INTERRUPTED if stopped.interrupted else EXIT_STORE
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    skipped = f" ({report.skipped} already there from the interrupted push)" if report.skipped else ""
    err(f"pushed {report.graphs - report.skipped} graphs{skipped} ({report.quads} quads) in {report.requests} "
        f"requests, {report.seconds:.1f} s, by {how}")
    for graph in report.pruned:
        err(f"pruned remote graph {graph} (no longer in the local store, or left staged by an interrupted push)")
    if report.verified is None:
        return EXIT_OK
    if report.mismatches:
        for graph, local, remote in report.mismatches[:20]:
            err(f"mismatch: {graph}: {local} quads here, {remote} there")
        err(f"kg push: error: {len(report.mismatches)} graph(s) differ on the remote store")
        return EXIT_STORE
    err(f"verified: the remote store holds the same number of quads in all {report.graphs} graphs")
    return EXIT_OK


def _resume_command(args: argparse.Namespace) -> str:
    """The command that finishes an interrupted push: the same target, ``--resume``, no password."""
    from ..pushes import DEFAULT_BATCH_BYTES, redact

    words = ["kg", "push", "--store", str(args.store), "--endpoint", redact(args.endpoint)]
    for option, value in (("--update-endpoint", args.update_endpoint), ("--graph-store", args.graph_store)):
        if value:
            words += [option, redact(value)]
    if args.user is not None:
        words += ["--user", "USER", "--auth", args.auth]
    if args.graph_param != "graph":
        words += ["--graph-param", args.graph_param]
    if args.batch_kib * 1024 != DEFAULT_BATCH_BYTES:
        words += ["--batch-kib", str(args.batch_kib)]
    return " ".join(shlex.quote(word) for word in words + ["--resume"])
