"""The MCP resources and prompts of kg: what an agent reads before it asks (vocabulary, shapes, VoID, queries).

Resources (read-only text):

- ``kg://ontology`` the kg ontology (Turtle), ``kg://ontology/context.jsonld`` its JSON-LD context;
- ``kg://shapes/NAME`` each SHACL shapes file (Turtle) that kg validate checks;
- ``kg://void`` the dataset's VoID description as the store holds it (Turtle: classes, counts);
- ``kg://query/NAME`` every named query's SPARQL with its header (the examples a
  text-to-SPARQL agent learns the graph's shape from; ``kg://queries/NAME``, its former name,
  is read too).

Resource templates (``resources/templates/list``; their arguments complete, :mod:`kg.mcp.completion`):
``kg://system/{id}`` (a system's summary, as the show tool gives it), ``kg://query/{name}``,
``kg://vendor/{key}`` (a vendor's portfolio), ``kg://section/{name}`` (the systems of a section),
``kg://shapes/{name}`` and ``kg://findings/{id}`` (a system's validation findings, kept beside the
store's version: :mod:`kg.findings`).

Prompts, for the common tasks: ``find-systems`` (a need, in words, and a section),
``compare-systems`` (``system`` and ``other``), ``what-depends-on`` (a system or a vendor),
``write-sparql`` (a question). Each is one user message that names the tools and resources to use.

>>> [r.uri for r in static_resources()][:2]
['kg://ontology', 'kg://ontology/context.jsonld']
>>> sorted(PROMPTS)
['compare-systems', 'find-systems', 'what-depends-on', 'write-sparql']
>>> template_call("kg://section/Dedicated%20memory%20layers")
('find', {'section': 'Dedicated memory layers', 'limit': 1000})
>>> completion_kind("ref/resource", "kg://system/{id}", "id"), completion_kind("ref/prompt", "compare-systems", "other")
('system', 'system')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import unquote

import mcp_types as types

from ..errors import NotFound
from ..queries import NamedQuery
from ..resources import resource, resource_dir

TURTLE, SPARQL, JSONLD, JSON = "text/turtle", "application/sparql-query", "application/ld+json", "application/json"
QUERY_PREFIXES = ("kg://query/", "kg://queries/")  # the second: the former name, still read


def static_resources() -> list[types.Resource]:
    """The ontology, its JSON-LD context and the shapes files (files of the package)."""
    out = [types.Resource(uri="kg://ontology", name="ontology", title="The kg ontology (OWL, Turtle)",
                          mime_type=TURTLE, description="Classes and properties of the graph: read it to "
                          "know what to ask for (kg:System, kg:tier, kg:runtimeDependency, ...)."),
           types.Resource(uri="kg://ontology/context.jsonld", name="ontology-context",
                          title="JSON-LD context of the ontology", mime_type=JSONLD)]
    for path in sorted(resource_dir("shapes").glob("*.ttl")):
        out.append(types.Resource(uri=f"kg://shapes/{path.stem}", name=f"shapes-{path.stem}", mime_type=TURTLE,
                                  title=f"SHACL shapes: {path.name}",
                                  description="The rules kg validate checks records against."))
    return out


def query_resources(queries: dict[str, NamedQuery]) -> list[types.Resource]:
    """A resource for each named query: its SPARQL with its header."""
    return [types.Resource(uri=f"kg://query/{q.name}", name=f"query-{q.name}", title=q.title or q.name,
                           mime_type=SPARQL, description=q.question or None) for q in queries.values()]


def void_resource() -> types.Resource:
    return types.Resource(uri="kg://void", name="void", title="VoID description of the dataset", mime_type=TURTLE,
                          description="What the store holds: triples, entities per class, licence, ontology.")


def read(uri: str, queries: dict[str, NamedQuery], void: Callable[[], str]) -> tuple[str, str]:
    """(mime type, text) of one resource that needs no tool call; an unknown URI is NotFound."""
    if uri == "kg://ontology":
        return TURTLE, resource("ontology", "kg.ttl").read_text(encoding="utf-8")
    if uri == "kg://ontology/context.jsonld":
        return JSONLD, resource("ontology", "context.jsonld").read_text(encoding="utf-8")
    if uri == "kg://void":
        return TURTLE, void()
    name = next((unquote(uri[len(p):]) for p in QUERY_PREFIXES if uri.startswith(p)), None)
    if name in queries:
        return SPARQL, queries[name].text
    kind, _, name = uri.removeprefix("kg://").partition("/")
    if kind == "shapes" and name and (resource_dir("shapes") / f"{name}.ttl").is_file():
        return TURTLE, (resource_dir("shapes") / f"{name}.ttl").read_text(encoding="utf-8")
    raise NotFound(f"no resource {uri!r}; resources/list and resources/templates/list name them")


@dataclass(frozen=True)
class Template:
    """A resource template: its URI template, what it is, and what its one variable completes with."""

    uri: str  # e.g. kg://system/{id}
    name: str
    title: str
    mime: str
    description: str
    completes: str  # a kind of kg.mcp.completion
    tool: str | None = None  # the tool whose answer a resource of the template is (None: read())
    arguments: Callable[[str], dict[str, Any]] = lambda value: {}

    @property
    def variable(self) -> str:
        return self.uri[self.uri.index("{") + 1:self.uri.index("}")]

    def match(self, uri: str) -> str | None:
        """The variable's value (percent-decoded) when ``uri`` is one of this template's resources."""
        head = self.uri[:self.uri.index("{")]
        value = uri[len(head):] if uri.startswith(head) else ""
        return unquote(value) if value and "/" not in value else None


TEMPLATES = (
    Template("kg://system/{id}", "system", "A system's summary", JSON,
             "Name, description, tier, sections, pros, cons, key cells and edges of one system (the show tool's "
             "summary); {id} is its catalog id.", "system", "show", lambda value: {"id": value}),
    Template("kg://query/{name}", "query", "A named query's SPARQL and header", SPARQL,
             "The query's text with its header: title, question, typed parameters, what it returns.", "query"),
    Template("kg://vendor/{key}", "vendor", "A vendor's portfolio", JSON,
             "The vendors whose key or name holds {key}, with their systems (vendor-portfolio).", "vendor",
             "vendor-portfolio", lambda value: {"vendor": value, "min_systems": 1}),
    Template("kg://section/{name}", "section", "The systems of a section", JSON,
             "The systems listed in the sections whose name holds {name} (find), at most 1000.", "section",
             "find", lambda value: {"section": value, "limit": 1000}),
    Template("kg://shapes/{name}", "shapes", "A SHACL shapes file", TURTLE,
             "The rules kg validate checks records against.", "shape"),
    Template("kg://findings/{id}", "findings", "A system's validation findings", JSON,
             "What kg validate found wrong with one system (findings): each finding's rule, severity, message, "
             "the cell's column and the value, kept beside the store's version; {id} is its catalog id.", "system",
             "findings", lambda value: {"id": value, "limit": 1000}),
)


def resource_templates() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate(uri_template=t.uri, name=t.name, title=t.title, mime_type=t.mime,
                                   description=t.description) for t in TEMPLATES]


def template_call(uri: str) -> tuple[str, dict[str, Any]] | None:
    """(tool, arguments) whose answer is the resource ``uri``, when a template says so."""
    for template in TEMPLATES:
        value = template.match(uri)
        if value is not None and template.tool is not None:
            return template.tool, template.arguments(value)
    return None


def completion_kind(ref_type: str, ref: str, argument: str) -> str | None:
    """What the argument of a prompt (``ref/prompt``, its name) or a resource template
    (``ref/resource``, its URI template) completes with; None: nothing."""
    if ref_type == "ref/prompt" and ref in PROMPTS:
        return next((kind for name, _, _, kind in PROMPTS[ref][1] if name == argument), None)
    return next((t.completes for t in TEMPLATES if ref_type == "ref/resource" and t.uri == ref
                 and t.variable == argument), None)


#: name -> (description, [(argument, description, required, what it completes with)], the user message)
PROMPTS: dict[str, tuple[str, list[tuple[str, str, bool, str | None]], str]] = {
    "find-systems": (
        "Find the systems of the catalog that fit a need, with facets (licence, self-hosting, protocol, tier, ...).",
        [("need", "what the systems must do or be, in words (e.g. open-source memory layer with MCP)", True, None),
         ("section", "only systems of this section (optional)", False, "section")],
        "Find the systems of the AI Agent Infrastructure Landscape that fit this need: {need}{section}\n\n"
        "Use the find tool: put the facets the need names in its arguments (open, selfhost, protocol, mode, "
        "tier, section, vendor, the taxonomy axes) and the remaining words in text (every word must match, "
        "anywhere in the id, name, description or claims; hits where the words start words come first). If nothing fits, drop a facet or a word and say so. Answer with a short table "
        "(id, name, tier, why it fits) and the facet counts that help narrow further."),
    "compare-systems": (
        "Compare two systems side by side.",
        [("system", "the first system: its catalog id, or words of its name", True, "system"),
         ("other", "the second system: its catalog id, or words of its name", True, "system")],
        "Compare these two systems of the catalog: {system} and {other}.\n\n"
        "If either is not a catalog id, find it with the search tool first. Then use the compare tool "
        "(both ids), and show for each only its summary (show tool, without full). Answer with the "
        "differences that matter (tier, licence, deployment, protocols, taxonomy) and the edges between them."),
    "what-depends-on": (
        "What depends on a system or a vendor (its blast radius), directly or through others.",
        [("target", "a system (id or name, e.g. Anthropic) or a vendor (e.g. openai)", True, "target")],
        "What in the catalog depends on {target}, directly or through other systems?\n\n"
        "Use the substrate-risk tool: system={target} for a system (a name several systems share means the "
        "one the others depend on; the answer's notes say which was chosen), or vendor={target} for every "
        "system of a vendor. Answer with the count, the direct dependents, and the longest paths (via)."),
    "write-sparql": (
        "Write (and run) a SPARQL query that answers a question about the graph.",
        [("question", "the question, in words", True, None)],
        "Write a SPARQL 1.1 query over the kg graph that answers: {question}\n\n"
        "Read the resource kg://ontology for the classes and properties, kg://void for what the store "
        "holds, and the named queries under kg://query/ as examples (search, find, substrate-risk, "
        "vendor-portfolio show the usual patterns). The default graph is the union of the named graphs. "
        "Run it with the sparql tool (add a LIMIT), fix it if it fails, and answer with the query and "
        "what it returned."),
}


def prompt_list() -> list[types.Prompt]:
    return [types.Prompt(name=name, description=description,
                         arguments=[types.PromptArgument(name=a, description=d, required=r) for a, d, r, _ in args])
            for name, (description, args, _) in PROMPTS.items()]


def prompt(name: str, arguments: dict[str, Any] | None) -> types.GetPromptResult:
    """The prompt's message with its arguments filled in; an unknown prompt is NotFound, a
    missing required argument a KeyError."""
    if name not in PROMPTS:
        raise NotFound(f"no prompt {name!r}; prompts/list names them")
    description, args, template = PROMPTS[name]
    given = {k: str(v) for k, v in (arguments or {}).items()}
    missing = [a for a, _, required, _ in args if required and not given.get(a)]
    if missing:
        raise KeyError(f"prompt {name} needs the argument {', '.join(missing)}")
    values = {a: given.get(a, "") for a, _, _, _ in args}
    if "section" in values and values["section"]:
        values["section"] = f" (section: {values['section']})"
    text = template.format(**values)
    return types.GetPromptResult(description=description, messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=text))])
