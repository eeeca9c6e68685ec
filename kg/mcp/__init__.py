"""``kg mcp``: the knowledge graph's named queries, SPARQL and analysis as tools of an MCP server.

Layout::

    config         what kg mcp can be told (light: the command line reads its defaults)
    schema         a named query's header as the JSON Schema of its tool, and its arguments as parameters
    store_workers  the store read-only and its query workers (kg.runtime), deadline and row cap
    results        workers' answers as tool results (rows as objects, graphs as triples)
    systems        does an id name a system; a system's record, edges and centrality
    analysis       the analyze tool (kg.analyse's measures)
    server         the tools on the MCP SDK's low-level Server
    transports     stdio and streamable HTTP (127.0.0.1)

Importing this package loads neither the MCP SDK nor the store: ``config`` and
``schema`` work without the ``mcp`` extra; ``server`` and ``transports`` need it.
"""
