"""The views of ``kg serve``: one module per page kind, the HTML pages and the machine answers
(JSON, RDF, SPARQL results) of that kind from the same module.

Each view module has ``respond(service, request)``, run on the event loop for every request the
route table (:mod:`kg.serve.routes`) gives it: it only reads the request, and says how the answer
is made (:mod:`kg.serve.dispatch`: a worker's answer, a blocking answer made in a thread, a
stream of the store's dump, or an answer ready at once). A view whose answers a query worker
makes also has ``OP`` (the name its messages carry) and ``render(worker, msg)``, run in the
worker against the store version it reads, through the worker's public API
(:class:`kg.serve.worker.Worker`, :mod:`kg.serve.rendering`).

To add a page kind: a module here with ``respond`` (and ``OP`` and ``render`` when a worker
answers it), and one row in :data:`kg.serve.routes.ROUTES`; the route table, its methods, the
``Allow`` header, the worker's dispatch and the route list of the serve guide all follow from it.
"""
