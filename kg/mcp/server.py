"""The MCP server of kg on the SDK's low-level Server: tools, resources, templates, prompts, completion.

The tools are built from the query registry (:func:`kg.queries.listing`): which queries are tools
of their own and which the ``catalog`` tool answers is :mod:`kg.mcp.surface`'s (plumbing listed only
with ``--all-tools``; every registered query can be called by its name). A query's input schema is
built from its header (:mod:`kg.mcp.schema`). Three tools are not queries: ``sparql`` (a guarded
SPARQL query), ``describe-system`` (one system's record) and ``analyze`` (the graph measures).
Every tool only reads.

A tool answers with its result as JSON, both as text and as structured content. A bad
argument, an id that names no system, a refused or timed-out query is a tool error
(``isError``) whose text says what went wrong; only an unknown tool name is a protocol
error. The work runs in a thread, so that a long query never stalls the connection.

Each named-query tool declares its output schema (rows, a boolean or triples:
:func:`kg.mcp.schema.output_schema`); a number or boolean given as a string is taken as one.
Rows come a page at a time (:mod:`kg.mcp.paging`). ``show`` answers the system's summary by
default (:func:`kg.mcp.systems.summary`), every triple with ``full: true``. The resources, resource
templates and prompts are :mod:`kg.mcp.context`'s; their arguments complete from the store
(:mod:`kg.mcp.completion`).
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
from . import analysis, context, paging, schema, systems
from .completion import Completions
from .store_workers import StoreWorkers
from .surface import CATALOG_TOOL, Surface, catalog_description, catalog_input_schema

SPARQL_TOOL = "sparql"
DESCRIBE_TOOL = "describe-system"
ANALYZE_TOOL = "analyze"
# read-only (the destructive and idempotent hints mean something only for a tool that writes)
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _version() -> str:
    try:
        return version("agent-landscape-kg")
    except PackageNotFoundError:
        return "0+unknown"


def _instructions(workers: StoreWorkers) -> str:
    return ("Read-only tools over the AI Agent Infrastructure Landscape knowledge graph (systems, vendors, "
            "protocols, edges between systems). Find a system's catalog id with search or find, then use "
            "show, related, compare or substrate-risk; catalog answers the catalog-wide questions (counts, "
            "licences, protocols, what changed, ...); recommend, between, predict-citations and breakouts "
            "advise. Rows come a page at a time (limit rows from offset): when has_more is true, "
            "call again with offset=next_offset. sparql runs one SPARQL 1.1 query over the union of the "
            "named graphs (SERVICE and remote FROM refused; the first "
            f"{workers.config.max_rows} rows of an answer are read, {workers.config.timeout:g} s).")


class Tools:
    """The tools of one server: their definitions, and what a call of each returns."""

    def __init__(self, workers: StoreWorkers, all_tools: bool = False) -> None:
        self.workers = workers
        self.queries: dict[str, NamedQuery] = {q.name: q for q in listing()}
        self.surface = Surface.of(self.queries, all_tools)
        self.analyses: analysis.Analyses | None = None  # of one version, made at the first analyze call
        workers.on_new_version.append(self._forget_analyses)  # so that they do not keep an old version
        self.completions = Completions(workers.version, lambda: list(self.queries))
        self._own: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            CATALOG_TOOL: self._catalog, SPARQL_TOOL: self._sparql, DESCRIBE_TOOL: self._describe,
            ANALYZE_TOOL: self._analyze}
        clash = set(self.queries) & set(self._own)
        if clash:
            raise QueryError(f"a named query has the name of a built-in tool: {', '.join(sorted(clash))}")
        self.definitions = [self._query_tool(q) for q in self.surface.listed] + self._own_tools()

    @property
    def names(self) -> set[str]:
        """Every tool that can be called: the listed ones and every registered query."""
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
                          "DESCRIBE) with its PREFIX lines"},
                "timeout": {"type": "number", "exclusiveMinimum": 0,
                            "description": f"stop the query after this many seconds (at most {config.timeout:g})"},
                paging.LIMIT: paging.limit_schema(paging.PAGE_SIZE), paging.OFFSET: paging.offset_schema(),
            },
            "required": ["query"], "additionalProperties": False,
        }
        describe_schema = {
            "type": "object",
            "properties": {"id": {"type": "string", "pattern": ID_PATTERN.pattern,
                                  "description": "the system's catalog id, e.g. mem0--mem0-ai (search finds it)"}},
            "required": ["id"], "additionalProperties": False,
        }
        listed = [
            types.Tool(name=SPARQL_TOOL, title="Read-only SPARQL query", input_schema=sparql_schema,
                       annotations=_READ_ONLY,
                       description="Run one read-only SPARQL 1.1 query on the knowledge graph (SERVICE, updates "
                       f"and FROM of graphs it does not hold refused; stopped after {config.timeout:g} s). Returns a "
                       "page of rows (SELECT) or triples (CONSTRUCT), or a boolean (ASK); truncated: only the first "
                       f"{config.max_rows} were read."),
            types.Tool(name=DESCRIBE_TOOL, title="Describe one system", input_schema=describe_schema,
                       annotations=_READ_ONLY,
                       description="One system's whole record as catalog JSON (every cell with its status, "
                       "citation and claim tier; provenance, history), the edges that touch it, and its "
                       "centrality measures when kg analyze --write-back stored them. show gives its summary."),
            types.Tool(name=ANALYZE_TOOL, title="Graph measures of the systems", input_schema=analysis.input_schema(),
                       annotations=_READ_ONLY, description=analysis.DESCRIPTION),
        ]
        if self.surface.questions:
            listed.insert(0, types.Tool(
                name=CATALOG_TOOL, title="The catalog's questions", annotations=_READ_ONLY,
                description=catalog_description(self.surface.questions),
                input_schema=catalog_input_schema(self.surface.questions), output_schema=schema.rows_schema()))
        return [t for t in listed if self.surface.all_tools or t.name != DESCRIBE_TOOL]

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result of one tool call; raises KgError for what the caller must fix."""
        # What reads the store in this process reads one version, pinned for the call
        # (workers.version()). It is passed on, never kept in a local: frames that call
        # the guard can outlive the call (rdflib's parser keeps exceptions), and a
        # pinned version must not outlive its readers.
        own = self._own.get(name)
        if own is not None:
            return own(arguments)
        return self._named(self.queries[name], arguments)

    def _named(self, query: NamedQuery, arguments: dict[str, Any]) -> dict[str, Any]:
        """A named query's answer: a page of its rows, its boolean, its triples or show's summary."""
        full = query.name == "show" and schema._coerced(arguments.pop(schema.SHOW_FULL, False), "boolean")
        if not isinstance(full, bool):
            raise QueryError("show: argument full must be a JSON boolean")
        cap = self.workers.config.max_rows
        page = None
        if schema.pages(query):
            own = query.limit_param
            page = paging.read_page(arguments, schema.page_size(query), cap, query.name,
                                    own.name if own else paging.LIMIT)
            if own is not None:  # the query's own LIMIT reads the page and one row more
                arguments[own.name] = min(page.reach, cap)
        params = schema.query_params(query, arguments)
        planned = plan(query, params, self.workers.version(), self.workers.iris)
        # an unknown id or an ambiguous name is NotFound (a tool error), as in the CLI and serve
        result = self.workers.named(planned, cap if page is not None else None)
        if page is not None:
            return paging.window(result, page, read=planned.limit or cap, cap=cap)
        if query.name == "show" and not full:
            summary = systems.summary(self.workers.version(), self.workers.iris, params["id"])
            return {**summary, "summary": True, "wholeTripleCount": result["tripleCount"]}
        return result

    def _catalog(self, arguments: dict[str, Any]) -> dict[str, Any]:
        _only(CATALOG_TOOL, arguments, {"question", "arguments", paging.LIMIT, paging.OFFSET})
        name, given = arguments.get("question"), arguments.get("arguments") or {}
        asked = {q.name: q for q in self.surface.questions}
        if name not in asked:
            raise UsageError(f"catalog: question must be one of {', '.join(asked)}; got {name!r}")
        if not isinstance(given, dict):
            raise UsageError("catalog: arguments must be an object of the question's parameters")
        query = asked[name]
        paged = {k: arguments[k] for k in (paging.LIMIT, paging.OFFSET) if arguments.get(k) is not None}
        if query.limit_param is not None and paging.LIMIT in paged:
            paged[query.limit_param.name] = paged.pop(paging.LIMIT)
        return self._named(query, {**given, **paged})
    # -- resources -----------------------------------------------------------

    def resources(self) -> list[types.Resource]:
        """The ontology, the shapes, the VoID description and every named query's SPARQL."""
        return [*context.static_resources(), context.void_resource(), *context.query_resources(self.queries)]

    def read_resource(self, uri: str) -> tuple[str, str]:
        """(mime type, text) of one resource, or of one of a template's (the answer of the tool it
        names, as JSON); NotFound for an unknown URI."""
        call = context.template_call(uri)
        if call is not None:
            return context.JSON, json.dumps(self.call(*call), ensure_ascii=False)
        return context.read(uri, self.queries, self._void)

    def complete(self, ref_type: str, ref: str, argument: str, given: str) -> types.Completion:
        """The values that complete ``given`` for a prompt's or a resource template's argument."""
        kind = context.completion_kind(ref_type, ref, argument)
        if kind is None:
            return types.Completion(values=[], total=0, has_more=False)
        values, total = self.completions.complete(kind, given)
        return types.Completion(values=values, total=total, has_more=total > len(values))

    def _void(self) -> str:
        store = self.workers.version()
        return store.dump(None, "turtle", graph=self.workers.iris.dataset_graph).decode("utf-8")

    def _analyze(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.workers.refresh()
        analyses = self.analyses
        if analyses is None or analyses.store.generation != self.workers.store.generation:
            analyses = self.analyses = analysis.Analyses(self.workers.version(), self.workers.iris)
        return analyses.run(arguments, self.workers.config.max_rows)

    def _forget_analyses(self) -> None:
        self.analyses = None

    def _sparql(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """A page of a SPARQL query's rows (or triples): its first ``max_rows`` are read, never refused."""
        _only(SPARQL_TOOL, arguments, {"query", "timeout", paging.LIMIT, paging.OFFSET})
        cap = self.workers.config.max_rows
        page = paging.read_page(arguments, paging.PAGE_SIZE, cap, SPARQL_TOOL)
        text, timeout = arguments.get("query"), arguments.get("timeout")
        if not isinstance(text, str) or not text.strip():
            raise QueryError("sparql needs the argument query: the text of a SPARQL query")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
            raise QueryError("sparql: timeout must be a number of seconds")
        answer = self.workers.sparql(text, None if timeout is None else float(timeout), cap=cap)
        if "rows" in answer:
            return paging.window(answer, page, read=cap, cap=cap)
        if "triples" in answer:
            return paging.window(answer, page, read=cap, cap=cap, items="triples", count="tripleCount")
        return answer

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

    async def list_templates(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=context.resource_templates())

    async def complete(ctx: ServerRequestContext[Any], params: types.CompleteRequestParams) -> types.CompleteResult:
        ref = params.ref
        name = ref.name if isinstance(ref, types.PromptReference) else ref.uri
        completion = await anyio.to_thread.run_sync(tools.complete, ref.type, name, params.argument.name,
                                                    params.argument.value)
        return types.CompleteResult(completion=completion)

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
                  on_list_resource_templates=list_templates, on_completion=complete,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)
