"""The runtime ``kg serve`` and ``kg mcp`` share: the query worker processes and the query limits.

* ``pool``: a fixed number of worker processes, each running the worker module it is given
  (both servers give the SPARQL endpoint's, :mod:`kg.serve.worker`), killed and replaced past
  a deadline; SPARQL Updates in one-off writable processes. Its parts: ``child`` (what runs in
  a child process), ``pipe`` (a child seen from the server, and the messages they exchange),
  ``checkout`` (the idle workers and the two ways to take one), ``counts`` (what the workers count,
  gathered in the server), ``answer_cache`` (answers given
  again while the store's generation is the same) and ``failures`` (a failed call, and the one
  answer both servers give for it);
* ``limits``: the query limits both servers apply (deadline, rows, bytes, query length, worker memory);
* ``listening``: the listening socket each server binds before it announces its address.
"""
