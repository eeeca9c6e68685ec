"""The runtime ``kg serve`` and ``kg mcp`` share: the query worker processes and the query limits.

* ``pool``: a fixed number of worker processes, each running the worker module it is given
  (both servers give the SPARQL endpoint's, :mod:`kg.serve.worker`), killed and replaced past
  a deadline; SPARQL Updates in one-off writable processes;
* ``limits``: the query limits both servers apply (deadline, rows, bytes, query length, worker memory);
* ``listening``: the listening socket each server binds before it announces its address.
"""
