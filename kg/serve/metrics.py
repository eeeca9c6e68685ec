"""What ``/metrics`` says: the server's counters in the Prometheus text format (``kg serve --metrics``).

Off unless asked for (``--metrics``): a public endpoint does not tell strangers how busy it is. On,
``/metrics`` gives, in the text format Prometheus scrapes (written by ``prometheus-client``, the
``[metrics]`` extra):

- ``kg_http_requests_total{route,method,status}``: requests answered, by route (the path of the route
  table's row, :mod:`kg.serve.routes`; ``unrouted`` for a path that is no page), method and status;
- ``kg_http_request_duration_seconds{route}``: a histogram of the time to answer (to the answer's
  first byte: a dump streamed for minutes counts the time it took to start);
- ``kg_query_timeouts_total``, ``kg_worker_replacements_total``: queries stopped at the deadline
  (their worker killed) and workers started in place of one killed or lost;
- ``kg_answer_cache_hits_total``, ``kg_answer_cache_misses_total``, ``kg_answer_cache_bytes``,
  ``kg_answer_cache_entries``: the answers given again without a worker (:mod:`kg.runtime.answer_cache`);
- ``kg_store_generation``: the store's current generation (it goes up at each ingest or update);
- ``kg_workers``, ``kg_workers_idle``: the pool's size and its idle workers;
- what the workers count, gathered in the server (:mod:`kg.runtime.counts`):
  ``kg_worker_queries_evaluated_total``, ``kg_worker_queries_refused_total`` (by the guard),
  ``kg_worker_version_moves_total`` (a worker moving to a newer version of the store).

Each server has its own registry (two apps in one process never mix their counts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from ..errors import UsageError

if TYPE_CHECKING:
    from .service import Service

MISSING = "kg serve --metrics needs prometheus-client: pip install 'agent-landscape-kg[metrics]'"
# what the workers count (kg.serve.worker.Worker.counts) -> (metric, help)
WORKER_COUNTS = {
    "evaluated": ("kg_worker_queries_evaluated", "SPARQL queries the workers evaluated"),
    "refused": ("kg_worker_queries_refused", "queries the guard refused in the workers (SERVICE, a remote FROM, "
                                             "malformed, too large)"),
    "version_moves": ("kg_worker_version_moves", "times a worker moved to a newer version of the store"),
}


class Metrics:
    """The counters of one server, and their exposition."""

    def __init__(self, service: "Service") -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Histogram
        except ImportError:
            raise UsageError(MISSING) from None
        from ..runtime.answer_cache import Generations

        self.registry = CollectorRegistry()
        self.requests = Counter("kg_http_requests", "HTTP requests answered, by route, method and status",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("kg_http_request_duration_seconds",
                                 "time to answer a request (to the first byte of its answer), by route", ["route"],
                                 registry=self.registry,
                                 buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60))
        self.registry.register(_PoolCollector(service, Generations(service.config.store)))

    def started(self, route: str, seconds: float) -> None:
        """An answer began, ``seconds`` after its request came."""
        self.latency.labels(route).observe(seconds)

    def answered(self, route: str, method: str, status: int) -> None:
        self.requests.labels(route, method if method in _METHODS else "other", str(status or "none")).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text format's body and its media type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


_METHODS = ("GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH")


class _PoolCollector:
    """The pool's own counts, read when scraped (the pool keeps them; nothing is copied)."""

    def __init__(self, service: "Service", generations: Any) -> None:
        self.service = service
        self.generations = generations

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        pool = self.service.pool
        yield CounterMetricFamily("kg_query_timeouts", "queries stopped at the deadline (their worker killed)",
                                  value=pool.timeouts)
        yield CounterMetricFamily("kg_worker_replacements", "workers started in place of one killed or lost",
                                  value=pool.replaced)
        answers = pool.answers
        yield CounterMetricFamily("kg_answer_cache_hits", "answers given again from memory, without a worker",
                                  value=answers.hits if answers is not None else 0)
        yield CounterMetricFamily("kg_answer_cache_misses", "requests the answer cache did not hold",
                                  value=answers.misses if answers is not None else 0)
        yield GaugeMetricFamily("kg_answer_cache_bytes", "bytes of the answers kept",
                                value=answers.bytes if answers is not None else 0)
        yield GaugeMetricFamily("kg_answer_cache_entries", "answers kept", value=len(answers) if answers else 0)
        generation = self.generations.current()
        if generation is not None:
            yield GaugeMetricFamily("kg_store_generation", "the store's current generation", value=generation)
        yield GaugeMetricFamily("kg_workers", "query worker processes", value=pool.size)
        yield GaugeMetricFamily("kg_workers_idle", "query workers waiting for work", value=pool.idle())
        totals = pool.counts.totals()
        for key, (name, text) in WORKER_COUNTS.items():
            yield CounterMetricFamily(name, text, value=totals.get(key, 0))
