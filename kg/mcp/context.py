"""The MCP resources and prompts of kg: what an agent reads before it asks (vocabulary, shapes, VoID, queries).

Resources (read-only text):

- ``kg://ontology`` the kg ontology (Turtle), ``kg://ontology/context.jsonld`` its JSON-LD context;
- ``kg://shapes/NAME`` each SHACL shapes file (Turtle) that kg validate checks;
- ``kg://void`` the dataset's VoID description as the store holds it (Turtle: classes, counts);
- ``kg://queries/NAME`` every named query's SPARQL with its header (the examples a
  text-to-SPARQL agent learns the graph's shape from).

Prompts, for the common tasks: ``find-systems`` (a need, in words), ``compare-systems``
(two systems), ``what-depends-on`` (a system or a vendor), ``write-sparql`` (a question).
Each is one user message that names the tools and resources to use.

>>> [r.uri for r in static_resources()][:2]
['kg://ontology', 'kg://ontology/context.jsonld']
>>> sorted(PROMPTS)
['compare-systems', 'find-systems', 'what-depends-on', 'write-sparql']
"""

from __future__ import annotations

from typing import Any, Callable

import mcp_types as types

from ..errors import NotFound
from ..queries import NamedQuery
from ..resources import resource, resource_dir

TURTLE, SPARQL, JSONLD = "text/turtle", "application/sparql-query", "application/ld+json"


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
    return [types.Resource(uri=f"kg://queries/{q.name}", name=f"query-{q.name}", title=q.title or q.name,
                           mime_type=SPARQL, description=q.question or None) for q in queries.values()]


def void_resource() -> types.Resource:
    return types.Resource(uri="kg://void", name="void", title="VoID description of the dataset", mime_type=TURTLE,
                          description="What the store holds: triples, entities per class, licence, ontology.")


def read(uri: str, queries: dict[str, NamedQuery], void: Callable[[], str]) -> tuple[str, str]:
    """(mime type, text) of one resource; an unknown URI is NotFound."""
    if uri == "kg://ontology":
        return TURTLE, resource("ontology", "kg.ttl").read_text(encoding="utf-8")
    if uri == "kg://ontology/context.jsonld":
        return JSONLD, resource("ontology", "context.jsonld").read_text(encoding="utf-8")
    if uri == "kg://void":
        return TURTLE, void()
    kind, _, name = uri.removeprefix("kg://").partition("/")
    if kind == "queries" and name in queries:
        return SPARQL, queries[name].text
    if kind == "shapes" and name and (resource_dir("shapes") / f"{name}.ttl").is_file():
        return TURTLE, (resource_dir("shapes") / f"{name}.ttl").read_text(encoding="utf-8")
    raise NotFound(f"no resource {uri!r}; resources/list names them")


#: name -> (description, [(argument, description, required)], template of the user message)
PROMPTS: dict[str, tuple[str, list[tuple[str, str, bool]], str]] = {
    "find-systems": (
        "Find the systems of the catalog that fit a need, with facets (licence, self-hosting, protocol, tier, ...).",
        [("need", "what the systems must do or be, in words (e.g. open-source memory layer with MCP)", True)],
        "Find the systems of the AI Agent Infrastructure Landscape that fit this need: {need}\n\n"
        "Use the find tool: put the facets the need names in its arguments (open, selfhost, protocol, mode, "
        "tier, section, vendor, the taxonomy axes) and the remaining words in text (every word must match, "
        "at a word start). If nothing fits, drop a facet or a word and say so. Answer with a short table "
        "(id, name, tier, why it fits) and the facet counts that help narrow further."),
    "compare-systems": (
        "Compare two systems side by side.",
        [("a", "the first system: its catalog id, or words of its name", True),
         ("b", "the second system: its catalog id, or words of its name", True)],
        "Compare these two systems of the catalog: {a} and {b}.\n\n"
        "If either is not a catalog id, find it with the search tool first. Then use the compare tool "
        "(both ids), and show for each only its summary (show tool, without full). Answer with the "
        "differences that matter (tier, licence, deployment, protocols, taxonomy) and the edges between them."),
    "what-depends-on": (
        "What depends on a system or a vendor (its blast radius), directly or through others.",
        [("target", "a system (id or name, e.g. Anthropic) or a vendor (e.g. openai)", True)],
        "What in the catalog depends on {target}, directly or through other systems?\n\n"
        "Use the substrate-risk tool: system={target} for a system (a name several systems share means the "
        "one the others depend on; the answer's notes say which was chosen), or vendor={target} for every "
        "system of a vendor. Answer with the count, the direct dependents, and the longest paths (via)."),
    "write-sparql": (
        "Write (and run) a SPARQL query that answers a question about the graph.",
        [("question", "the question, in words", True)],
        "Write a SPARQL 1.1 query over the kg graph that answers: {question}\n\n"
        "Read the resource kg://ontology for the classes and properties, kg://void for what the store "
        "holds, and the named queries under kg://queries/ as examples (search, find, substrate-risk, "
        "vendor-portfolio show the usual patterns). The default graph is the union of the named graphs. "
        "Run it with the sparql tool (add a LIMIT), fix it if it fails, and answer with the query and "
        "what it returned."),
}


def prompt_list() -> list[types.Prompt]:
    return [types.Prompt(name=name, description=description,
                         arguments=[types.PromptArgument(name=a, description=d, required=r) for a, d, r in args])
            for name, (description, args, _) in PROMPTS.items()]


def prompt(name: str, arguments: dict[str, Any] | None) -> types.GetPromptResult:
    """The prompt's message with its arguments filled in; an unknown prompt is NotFound, a
    missing required argument a KeyError."""
    if name not in PROMPTS:
        raise NotFound(f"no prompt {name!r}; prompts/list names them")
    description, args, template = PROMPTS[name]
    given = {k: str(v) for k, v in (arguments or {}).items()}
    missing = [a for a, _, required in args if required and not given.get(a)]
    if missing:
        raise KeyError(f"prompt {name} needs the argument {', '.join(missing)}")
    text = template.format(**{a: given.get(a, "") for a, _, _ in args})
    return types.GetPromptResult(description=description, messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=text))])
