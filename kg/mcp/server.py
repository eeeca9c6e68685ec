"""The MCP server of kg, on the SDK's low-level Server: a tool per named query, sparql, describe-system, analyze; resources and prompts.

Every named query of :func:`kg.queries.listing` is a tool of the same name whose input
schema is built from its header (:mod:`kg.mcp.schema`); the ``check-*`` queries are
among them, described as checks. The three other tools run a guarded SPARQL query
(``sparql``), describe one system (``describe-system``) and run the graph measures
(``analyze``). Every tool only reads.

A tool answers with its result as JSON, both as text and as structured content. A bad
argument, an id that names no system, a refused or timed-out query is a tool error
(``isError``) whose text says what went wrong; only an unknown tool name is a protocol
error. The work runs in a thread, so that a long query never stalls the connection.

Each named-query tool declares its output schema (rows, a boolean or triples:
:func:`kg.mcp.schema.output_schema`); a number or boolean given as a string is taken
as one. ``show`` answers the system's own facts by default, the whole record with
``full: true``. The resources (ontology, shapes, VoID, every named query's SPARQL) and
the prompts of the common tasks are :mod:`kg.mcp.context`'s.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable

import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..errors import KgError, QueryError, UsageError
from ..queries import NamedQuery, listing, plan
from ..vocab import ID_PATTERN
from . import analysis, context, schema, systems
from .store_workers import StoreWorkers

SPARQL_TOOL = "sparql"
DESCRIBE_TOOL = "describe-system"
ANALYZE_TOOL = "analyze"
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                   open_world_hint=False)


def _version() -> str:
    try:
        return version("agent-landscape-kg")
    except PackageNotFoundError:
        return "0+unknown"


def _instructions(workers: StoreWorkers) -> str:
    return ("Read-only tools over the AI Agent Infrastructure Landscape knowledge graph (systems, vendors, "
            "protocols, edges between systems). Find a system's catalog id with search, then use "
            "describe-system, related, compare or substrate-risk. sparql runs one SPARQL 1.1 query over the "
            "union of the named graphs (SERVICE and remote FROM refused, at most "
            f"{workers.config.max_rows} rows, {workers.config.timeout:g} s). Tools named check-* are the "
            "catalog-wide validation rules: each row is a violation.")


class Tools:
    """The tools of one server: their definitions, and what a call of each returns."""

    def __init__(self, workers: StoreWorkers) -> None:
        self.workers = workers
        self.queries: dict[str, NamedQuery] = {q.name: q for q in listing()}
        self.analyses: analysis.Analyses | None = None  # of one version, made at the first analyze call
        workers.on_new_version.append(self._forget_analyses)  # so that they do not keep an old version
        self._own: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            SPARQL_TOOL: self._sparql, DESCRIBE_TOOL: self._describe, ANALYZE_TOOL: self._analyze}
        clash = set(self.queries) & set(self._own)
        if clash:
            raise QueryError(f"a named query has the name of a built-in tool: {', '.join(sorted(clash))}")
        self.definitions = [self._query_tool(q) for q in self.queries.values()] + self._own_tools()

    @property
    def names(self) -> set[str]:
        return set(self.queries) | set(self._own)

    def _query_tool(self, query: NamedQuery) -> types.Tool:
        return types.Tool(name=query.name, title=query.title or None, description=schema.tool_description(query),
                          input_schema=schema.tool_input_schema(query), output_schema=schema.output_schema(query),
                          annotations=_READ_ONLY)

    def _own_tools(self) -> list[types.Tool]:
        config = self.workers.config
        sparql_schema = {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "a SPARQL 1.1 query (SELECT, ASK, CONSTRUCT or "
                          "DESCRIBE) with its PREFIX lines; the default graph is the union of the named graphs"},
                "timeout": {"type": "number", "exclusiveMinimum": 0,
                            "description": f"stop the query after this many seconds (at most {config.timeout:g})"},
            },
            "required": ["query"], "additionalProperties": False,
        }
        describe_schema = {
            "type": "object",
            "properties": {"id": {"type": "string", "pattern": ID_PATTERN.pattern,
                                  "description": "the system's catalog id, e.g. mem0--mem0-ai (search finds it)"}},
            "required": ["id"], "additionalProperties": False,
        }
        return [
            types.Tool(name=SPARQL_TOOL, title="Read-only SPARQL query", input_schema=sparql_schema,
                       annotations=_READ_ONLY,
                       description="Run one read-only SPARQL 1.1 query on the knowledge graph. SERVICE, LOAD, "
                       "updates and FROM of graphs the store does not hold are refused; a result of more than "
                       f"{config.max_rows} rows is refused (add LIMIT); the query is stopped after "
                       f"{config.timeout:g} s. Returns rows (SELECT), a boolean (ASK) or triples (CONSTRUCT)."),
            types.Tool(name=DESCRIBE_TOOL, title="Describe one system", input_schema=describe_schema,
                       annotations=_READ_ONLY,
                       description="One system's record as catalog JSON (name, tier, sections, cells, "
                       "provenance, history), the edges that touch it (outgoing and incoming), and its "
                       "centrality measures when kg analyze --write-back stored them."),
            types.Tool(name=ANALYZE_TOOL, title="Graph measures of the systems", input_schema=analysis.input_schema(),
                       annotations=_READ_ONLY, description=analysis.DESCRIPTION),
        ]

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result of one tool call; raises KgError for what the caller must fix."""
        # What reads the store in this process reads one version, pinned for the call
        # (workers.version()). It is passed on, never kept in a local: frames that call
        # the guard can outlive the call (rdflib's parser keeps exceptions), and a
        # pinned version must not outlive its readers.
        own = self._own.get(name)
        if own is not None:
            return own(arguments)
        query = self.queries[name]
        full = query.name == "show" and schema._coerced(arguments.pop(schema.SHOW_FULL, False), "boolean")
        if not isinstance(full, bool):
            raise QueryError("show: argument full must be a JSON boolean")
        params = schema.query_params(query, arguments)
        # an unknown id or an ambiguous name is NotFound (a tool error), as in the CLI and serve
        result = self.workers.named(plan(query, params, self.workers.version(), self.workers.iris))
        if query.name == "show" and not full:
            return schema.show_summary(result, self.workers.iris.system(params["id"]).value)
        return result

    # -- resources -----------------------------------------------------------

    def resources(self) -> list[types.Resource]:
        """The ontology, the shapes, the VoID description and every named query's SPARQL."""
        return [*context.static_resources(), context.void_resource(), *context.query_resources(self.queries)]

    def read_resource(self, uri: str) -> tuple[str, str]:
        """(mime type, text) of one resource; NotFound for an unknown URI."""
        return context.read(uri, self.queries, self._void)

    def _void(self) -> str:
        store = self.workers.version()
        return store.dump(None, "turtle", graph=self.workers.iris.dataset_graph).decode("utf-8")

    def _analyze(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.workers.refresh()
        analyses = self.analyses
        if analyses is None or analyses.store.generation != self.workers.store.generation:
            analyses = self.analyses = analysis.Analyses(self.workers.version(), self.workers.iris)
        return analyses.run(arguments)

    def _forget_analyses(self) -> None:
        self.analyses = None

    def _sparql(self, arguments: dict[str, Any]) -> dict[str, Any]:
        _only(SPARQL_TOOL, arguments, {"query", "timeout"})
        text, timeout = arguments.get("query"), arguments.get("timeout")
        if not isinstance(text, str) or not text.strip():
            raise QueryError("sparql needs the argument query: the text of a SPARQL query")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
            raise QueryError("sparql: timeout must be a number of seconds")
        return self.workers.sparql(text, None if timeout is None else float(timeout))

    def _describe(self, arguments: dict[str, Any]) -> dict[str, Any]:
        _only(DESCRIBE_TOOL, arguments, {"id"})
        system_id = arguments.get("id")
        if not isinstance(system_id, str):
            raise UsageError("describe-system needs the argument id: a system's catalog id (search finds it)")
        return systems.describe(self.workers.version(), self.workers.iris, system_id)


def _only(tool: str, arguments: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(arguments) - allowed)
    if unknown:
        raise UsageError(f"{tool} has no argument {', '.join(unknown)}; it takes: {', '.join(sorted(allowed))}")


def text_result(document: dict[str, Any]) -> types.CallToolResult:
    """A successful result: the document as JSON text and as structured content."""
    return types.CallToolResult(content=[types.TextContent(text=json.dumps(document, ensure_ascii=False))],
                                structured_content=document)


def error_result(message: str) -> types.CallToolResult:
    """A tool error the model can read and act on."""
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def build_server(tools: Tools) -> Server[Any]:
    """The SDK server whose tools are ``tools``."""
    listed = types.ListToolsResult(tools=tools.definitions)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in tools.names:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; tools/list names them")
        try:
            document = await anyio.to_thread.run_sync(tools.call, params.name, dict(params.arguments or {}))
        except KgError as err:
            return error_result(str(err))
        return text_result(document)

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=tools.resources())

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        try:
            mime, text = await anyio.to_thread.run_sync(tools.read_resource, str(params.uri))
        except KgError as err:
            raise MCPError(types.INVALID_PARAMS, str(err)) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), mime_type=mime,
                                                                             text=text)])

    async def list_prompts(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=context.prompt_list())

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
                         ) -> types.GetPromptResult:
        try:
            return context.prompt(params.name, dict(params.arguments or {}))
        except (KgError, KeyError) as err:
            raise MCPError(types.INVALID_PARAMS, str(err).strip('"')) from None

    return Server("kg", version=_version(), title="AI Agent Infrastructure Landscape (kg)",
                  instructions=_instructions(tools.workers), on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)
