"""``kg mcp``: the knowledge graph's named queries, SPARQL and analysis as tools of an MCP server.

Layout::

    config         what kg mcp can be told (light: the command line reads its defaults)
    surface        which registered queries are tools, which the catalog tool answers, which are plumbing
    schema         a named query's header as the JSON Schema of its tool, and its arguments as parameters
    paging         limit and offset of a call, and the page of an answer (has_more, total, truncated)
    store_workers  the store read-only and its query workers (kg.runtime), deadline and row cap
    results        workers' answers as tool results (rows as objects, graphs as triples)
    systems        does an id name a system; a system's record, edges and centrality; its summary
    analysis       the analyze tool (kg.analyse's measures)
    context        resources, resource templates and prompts
    completion     prompt and template arguments completed from the store
    server         the tools on the MCP SDK's low-level Server
    transports     stdio and streamable HTTP (127.0.0.1)

Importing this package loads neither the MCP SDK nor the store: ``config``, ``surface``,
``schema`` and ``paging`` work without the ``mcp`` extra; ``server`` and ``transports`` need it.
"""
