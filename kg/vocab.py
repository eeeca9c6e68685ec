"""Every IRI the code uses: ontology terms, reused vocabularies and minted data IRIs.

This is the only module that spells out IRIs. ``KG`` is closed: a misspelt term
raises ``AttributeError`` instead of quietly minting a new IRI, and
``tests/test_vocab.py`` checks that it lists exactly the terms that
``ontology/kg.ttl`` declares.

>>> KG.System.value
'https://w3id.org/agent-landscape/ontology#System'
>>> Iris("https://example.org/").system("mem0").value
'https://example.org/system/mem0'
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import quote, unquote

from pyoxigraph import NamedNode

from .resources import resource_dir

ONTOLOGY_IRI = "https://w3id.org/agent-landscape/ontology"
ONTOLOGY_VERSION = "0.1.0"
KG_NS = ONTOLOGY_IRI + "#"
DEFAULT_BASE = "https://w3id.org/agent-landscape/id/"
ONTOLOGY_DIR = resource_dir("ontology")
ONTOLOGY_FILE = ONTOLOGY_DIR / "kg.ttl"
CONTEXT_FILE = ONTOLOGY_DIR / "context.jsonld"


class Namespace:
    """A vocabulary namespace whose attributes are ``NamedNode`` terms.

    With ``terms`` given the namespace is closed: only those local names exist.
    """

    def __init__(self, iri: str, terms: tuple[str, ...] | None = None) -> None:
        self.iri = iri
        self.terms = terms
        if terms is not None:
            for name in terms:
                object.__setattr__(self, name, NamedNode(iri + name))

    def __getattr__(self, name: str) -> NamedNode:
        if name.startswith("_") or self.terms is not None:
            raise AttributeError(f"{self.iri} has no term {name!r}")
        term = NamedNode(self.iri + name)
        object.__setattr__(self, name, term)  # kept: the mapping asks for rdf:type a thousand times a record
        return term

    def term(self, name: str) -> NamedNode:
        """The term ``name`` of this namespace (checked when the namespace is closed)."""
        return getattr(self, name) if self.terms is not None else NamedNode(self.iri + name)


KG_CLASSES = (
    "System", "Vendor", "PublicationVenue", "License", "Protocol", "ProtocolSupport",
    "SupportMode", "DeploymentMode", "Column", "Cell", "Provenance", "SectionMembership",
    "TaxonomyAssignment", "HistoryEntry", "FieldChange", "Relation", "ExtraField", "SourceFile",
    "Changeset", "RecordChange", "EdgeChange", "FeatureSummary", "FeatureTally",
)
KG_PROPERTIES = (
    # record level, faithful
    "tier", "lastVerified", "family", "pageUrl", "declaredSection", "givenAsName",
    "recordDataLicense", "recordSource", "lifecycleStatus", "lifecycleSeverity", "lifecycleNote",
    "decayCause", "decayDate", "decayEvidence", "corroboration", "recordEdges", "nullKey", "absentKey", "emptyKey",
    "extraField", "key", "jsonValue", "position",
    # sections and taxonomy
    "sectionMembership", "section", "primarySection", "sectionName", "subsection", "isPrimary",
    "reason", "taxonomyAssignment", "axis", "taxonomyValue", "concept",
    "storage", "retrieval", "persistence", "update", "unit", "governance", "conflict",
    # cells
    "cell", "column", "value", "status", "claimTier", "citation", "sourceClass",
    "featureState", "featureFamily", "provenance", "provenanceSource", "verified", "author",
    "modelId",
    # history
    "historyEntry", "changeDate", "commit", "pullRequest", "changeKind", "fieldChange", "field",
    "fieldLabel", "fromValue", "toValue", "changeSource",
    # changesets (kg.history)
    "changesetNumber", "kgVersion", "sha256", "contentHash", "recordsAdded", "recordsRemoved",
    "recordsChanged", "edgesAdded", "edgesRemoved", "edgesChanged", "keyPath", "jsonBefore", "jsonAfter",
    "fromStatus", "toStatus", "fromClaimTier", "toClaimTier", "fromCitation", "toCitation", "edgeChange",
    "edgeSource", "edgeTarget", "edgeChangeType", "edgeChangeEvidence", "fromPosition", "toPosition", "idRank",
    # typed layer
    "vendor", "vendorKey", "vendorDerivedFrom", "vendorSource", "publicationVenue", "license",
    "licenseExpression", "spdxId", "osiApproved", "protocolSupport", "protocol", "supportMode",
    "supportsProtocol", "assessed", "searchText",
    "protocolSupportText", "taxonomyText", "deploymentMode", "created", "createdStart", "createdEnd", "latestVersion",
    "latestReleaseDate", "latestReleaseStart", "latestReleaseEnd",
    "githubRepository", "githubStars", "integrationCount", "capabilityScore",
    "costInputPerMTok", "costOutputPerMTok", "complianceFramework", "adviceCells", "citationCells",
    # feature counts: per system (derived at ingest) and catalog-wide (the dataset description)
    "featureSummary", "cellsYes", "cellsNo", "cellsUnknown", "cellsResearched", "yesColumns", "observabilityWithoutEval",
    "featureColumn", "systemCount", "systemsYes", "systemsNo", "systemsUnknown", "cellCount",
    # relations
    "relatedTo", "builtOn", "runtimeDependency", "integratesWith", "cites", "competesWith",
    "extends", "forks", "sameTeamAs", "succeeds", "inspiredBy", "source", "target", "edgeType",
    "edgeProperty", "evidence", "isInfluential",
    # sources
    "header", "sourceKind",
    # graph analysis (kg analyze --write-back)
    "betweenness", "coreness", "pageRank", "inboundCount", "outboundCount", "community", "component",
    "bridgeSurprise", "blastRadius",
)
KG_INDIVIDUALS = (
    "MCP", "A2A", "OpenTelemetry",
    "NativeSupport", "AdapterSupport", "ClientSupport", "NoSupportFound", "SupportNotApplicable",
    "SupportUnknown",
    "Hosted", "SelfHosted", "HostedAndSelfHosted",
)
KG = Namespace(KG_NS, KG_CLASSES + KG_PROPERTIES + KG_INDIVIDUALS)

RDF = Namespace("http://www.w3.org/1999/02/22-rdf-syntax-ns#")
RDFS = Namespace("http://www.w3.org/2000/01/rdf-schema#")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")
OWL = Namespace("http://www.w3.org/2002/07/owl#")
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#")
DCTERMS = Namespace("http://purl.org/dc/terms/")
PROV = Namespace("http://www.w3.org/ns/prov#")
SCHEMA = Namespace("https://schema.org/")
DOAP = Namespace("http://usefulinc.com/ns/doap#")
VOID = Namespace("http://rdfs.org/ns/void#")
DCAT = Namespace("http://www.w3.org/ns/dcat#")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")
SPDX_LICENSES = "http://spdx.org/licenses/"
SH = Namespace("http://www.w3.org/ns/shacl#")
# The SHACL shapes of shapes/ (kg/validation/rules.py names a rule by its shape's local name).
SHAPES_NS = "https://w3id.org/agent-landscape/shapes#"

PREFIXES: dict[str, str] = {
    "kg": KG_NS,
    "rdf": RDF.iri,
    "rdfs": RDFS.iri,
    "xsd": XSD.iri,
    "owl": OWL.iri,
    "skos": SKOS.iri,
    "dcterms": DCTERMS.iri,
    "prov": PROV.iri,
    "schema": SCHEMA.iri,
    "void": VOID.iri,
    "dcat": DCAT.iri,
    "spdx": SPDX_LICENSES,
    "sh": SH.iri,
}

# The ten edge types of the catalog and the object property each one becomes.
EDGE_PROPERTIES: dict[str, NamedNode] = {
    "built-on": KG.builtOn,
    "runtime-dependency": KG.runtimeDependency,
    "integrates-with": KG.integratesWith,
    "cites": KG.cites,
    "competes-with": KG.competesWith,
    "extends": KG.extends,
    "forks": KG.forks,
    "same-team-as": KG.sameTeamAs,
    "succeeds": KG.succeeds,
    "inspired-by": KG.inspiredBy,
}
TAXONOMY_AXES: dict[str, NamedNode] = {
    "storage": KG.storage,
    "retrieval": KG.retrieval,
    "persistence": KG.persistence,
    "update": KG.update,
    "unit": KG.unit,
    "governance": KG.governance,
    "conflict": KG.conflict,
}
PROTOCOLS: dict[str, NamedNode] = {"mcp": KG.MCP, "a2a": KG.A2A, "opentelemetry": KG.OpenTelemetry}
SUPPORT_MODES: dict[str, NamedNode] = {
    "native": KG.NativeSupport,
    "adapter": KG.AdapterSupport,
    "client": KG.ClientSupport,
    "none": KG.NoSupportFound,
    "not-applicable": KG.SupportNotApplicable,
    "unknown": KG.SupportUnknown,
}
DEPLOYMENT_MODES: dict[str, NamedNode] = {
    "hosted": KG.Hosted,
    "self-hosted": KG.SelfHosted,
    "both": KG.HostedAndSelfHosted,
}

CC_BY_4 = NamedNode("https://creativecommons.org/licenses/by/4.0/")
CATALOG_REPOSITORY = NamedNode("https://github.com/MrPeppersDev/agent-infrastructure-landscape")
ATTRIBUTION = (
    "AI Agent Infrastructure Landscape (Memory Analysis Program), Dataset v1.0.0. "
    "https://github.com/MrPeppersDev/agent-infrastructure-landscape - licensed CC-BY-4.0."
)

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=4096)
def slug(text: str) -> str:
    """A readable, IRI-safe path segment for free text (names of sections, taxonomy values).

    >>> slug("Agent IDEs & coding harnesses")
    'agent-ides-coding-harnesses'
    >>> slug("n/a")
    'n-a'
    """
    readable = _NOT_SLUG.sub("-", text.lower()).strip("-")
    return readable or "_" + segment(text)


@lru_cache(maxsize=4096)
def segment(text: str) -> str:
    """A path segment that keeps ``text`` exactly (percent-encoded), for keys and column slugs.

    A final dot is encoded too: Turtle writes it as ``\\.`` at the end of a prefixed
    name, which rdflib's parser (and others) cannot read back.

    >>> segment("a/b c.")
    'a%2Fb%20c%2E'
    """
    quoted = quote(text, safe="")
    return quoted[:-1] + "%2E" if quoted.endswith(".") else quoted


# The catalog's identifier rule (SCHEMA section 7.1 rule 6): a lowercase slug with an
# optional ``--suffix``. Only ids that match it are ever minted into IRIs.
ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(--[a-z0-9]+(-[a-z0-9]+)*)?$")


def is_record_id(text: object) -> bool:
    """Whether ``text`` is a catalog identifier.

    >>> is_record_id("mem0--mem0-ai"), is_record_id("Mem0"), is_record_id("a> <b")
    (True, False, False)
    """
    return isinstance(text, str) and ID_PATTERN.match(text) is not None


def system_key(iri: str) -> str:
    """A system's node key: its record id, the last segment of the IRI kg minted for it
    (``<base>system/<id>``, whatever the base), or the whole IRI of a system kg did not mint.

    ``kg.analyse`` reads ids this way, not from the store: at 45,600 records, reading each id
    too cost 0.3 s of select-analysis-systems' 1 s (each string is one lookup on disk).

    >>> system_key("https://example.org/kg/system/mem0--mem0-ai"), system_key("https://example.org/x")
    ('mem0--mem0-ai', 'https://example.org/x')
    """
    last = iri.rpartition("/system/")[2]
    return last if "/system/" in iri and is_record_id(last) else iri


class Iris:
    """Mints the stable IRIs of instance data under one configurable base.

    The same input always gives the same IRIs: nothing random, no blank nodes.
    """

    def __init__(self, base: str = DEFAULT_BASE) -> None:
        if not base.endswith(("/", "#")):
            base += "/"
        NamedNode(base)  # fails early on a base that is not an IRI
        self.base = base
        self._shared: dict[tuple[str, str], NamedNode] = {}  # shared resources' IRIs minted so far
        self.dataset = NamedNode(base + "dataset")
        self.edges_graph = NamedNode(base + "graph/edges")
        self.catalog_graph = NamedNode(base + "graph/catalog")
        self.shared_graph = NamedNode(base + "graph/shared")
        self.ontology_graph = NamedNode(base + "graph/ontology")
        self.dataset_graph = NamedNode(base + "graph/dataset")
        self.analysis_graph = NamedNode(base + "graph/analysis")
        self.history_index_graph = NamedNode(base + "graph/history-index")  # a content hash per record
        self.catalog_source = NamedNode(base + "source/catalog")
        self.edges_source = NamedNode(base + "source/edges")
        self.sections_scheme = NamedNode(base + "scheme/sections")
        self.proprietary_license = NamedNode(base + "license/proprietary")
        self.unknown_license = NamedNode(base + "license/unknown")

    def system(self, record_id: str) -> NamedNode:
        return NamedNode(f"{self.base}system/{record_id}")

    def record_graph(self, record_id: str) -> NamedNode:
        return NamedNode(f"{self.base}graph/record/{record_id}")

    def record_graph_prefix(self) -> str:
        return f"{self.base}graph/record/"

    def push_staging(self, graph: str) -> NamedNode:
        """The remote graph where ``kg push`` gathers a graph too large for one request before
        moving it into place (``graph`` under the base keeps its path; any other is quoted)."""
        rest = graph[len(self.base):] if graph.startswith(self.base) else "iri/" + quote(graph, safe="")
        return NamedNode(self.push_staging_prefix() + rest)

    def push_staging_prefix(self) -> str:
        return f"{self.base}push-staging/"

    def system_prefix(self) -> str:
        return f"{self.base}system/"

    def system_id(self, iri: object) -> str | None:
        """The record id of a system IRI minted here (the inverse of :meth:`system`), or
        ``None`` for any other IRI.

        >>> iris = Iris()
        >>> iris.system_id(iris.system("mem0--mem0-ai")), iris.system_id("https://example.org/x")
        ('mem0--mem0-ai', None)
        """
        return self._id_after(iri, self.system_prefix())

    def record_graph_id(self, iri: object) -> str | None:
        """The record id of a record graph IRI (the inverse of :meth:`record_graph`), or ``None``."""
        return self._id_after(iri, self.record_graph_prefix())

    def record_of(self, iri: object) -> str | None:
        """The record a minted node belongs to: a system, any part of it (cells, history
        entries, ...) or a relation from it; ``None`` for any other IRI.

        >>> iris = Iris()
        >>> cell = iris.part(iris.system("mem0--mem0-ai"), "cell", segment("mcp-support"))
        >>> iris.record_of(cell), iris.record_of(iris.relation("a", "cites", "b")), iris.record_of(iris.dataset)
        ('mem0--mem0-ai', 'a', None)
        """
        text = iri.value if isinstance(iri, NamedNode) else iri
        if not isinstance(text, str):
            return None
        for prefix in (self.system_prefix(), f"{self.base}relation/"):
            if text.startswith(prefix):
                return unquote(text[len(prefix):].split("/", 1)[0]) or None
        return None

    def cell_column(self, iri: object) -> str | None:
        """The column slug of a cell IRI (the inverse of ``part(system, "cell", segment(slug))``).

        >>> iris = Iris()
        >>> iris.cell_column(iris.part(iris.system("mem0--mem0-ai"), "cell", segment("a/b"))), iris.cell_column("x")
        ('a/b', None)
        """
        text = iri.value if isinstance(iri, NamedNode) else iri
        if not isinstance(text, str) or not text.startswith(self.system_prefix()):
            return None
        parts = text[len(self.system_prefix()):].split("/")
        return unquote(parts[2]) if len(parts) == 3 and parts[1] == "cell" else None

    def stored_ids(self, graphs: Iterable[object]) -> list[str]:
        """The record ids of the record graphs among ``graphs`` (a store's named graphs), in order."""
        return [found for found in map(self.record_graph_id, graphs) if found is not None]

    @staticmethod
    def _id_after(iri: object, prefix: str) -> str | None:
        text = iri.value if isinstance(iri, NamedNode) else iri
        if not isinstance(text, str) or not text.startswith(prefix):
            return None
        rest = text[len(prefix):]
        return rest if is_record_id(rest) else None

    def changeset(self, number: int) -> NamedNode:
        """The PROV activity of changeset ``number`` (kg.history)."""
        return NamedNode(f"{self.base}changeset/{number}")

    def changeset_graph(self, number: int) -> NamedNode:
        return NamedNode(f"{self.base}graph/changeset/{number}")

    def changeset_number(self, iri: object) -> int | None:
        """The number of a changeset graph IRI (the inverse of :meth:`changeset_graph`), or ``None``.

        >>> iris = Iris()
        >>> iris.changeset_number(iris.changeset_graph(12)), iris.changeset_number(iris.edges_graph)
        (12, None)
        """
        text = iri.value if isinstance(iri, NamedNode) else iri
        prefix = f"{self.base}graph/changeset/"
        if not isinstance(text, str) or not text.startswith(prefix) or not text[len(prefix):].isdigit():
            return None
        return int(text[len(prefix):])

    def is_history_graph(self, iri: object) -> bool:
        """Whether a graph is one of the history's (a changeset, or the index of record hashes):
        left out of the catalog JSON, validation and analysis."""
        text = iri.value if isinstance(iri, NamedNode) else iri
        return self.changeset_number(iri) is not None or text == self.history_index_graph.value

    def part(self, owner: NamedNode, *path: str) -> NamedNode:
        """A node that belongs to ``owner`` (a cell, a history entry, ...): owner IRI + path."""
        return NamedNode(owner.value + "/" + "/".join(path))

    # The shared resources' IRIs, minted once per value: every record points to the same few hundred
    # (a NamedNode costs a microsecond to make, a look-up a tenth of that).

    def _shared_node(self, kind: str, key: str, iri: Callable[[], str]) -> NamedNode:
        found = self._shared.get((kind, key))
        if found is None:
            found = self._shared[(kind, key)] = NamedNode(iri())
        return found

    def column(self, column_slug: str) -> NamedNode:
        return self._shared_node("column", column_slug, lambda: f"{self.base}column/{segment(column_slug)}")

    def section(self, name: str) -> NamedNode:
        return self._shared_node("section", name, lambda: f"{self.base}section/{slug(name)}")

    def axis_scheme(self, axis: str) -> NamedNode:
        return self._shared_node("scheme", axis, lambda: f"{self.base}scheme/taxonomy/{segment(axis)}")

    def taxonomy_concept(self, axis: str, value: str) -> NamedNode:
        return self._shared_node("taxonomy/" + axis, value,
                                 lambda: f"{self.base}taxonomy/{segment(axis)}/{slug(value)}")

    def vendor(self, key: str) -> NamedNode:
        return self._shared_node("vendor", key, lambda: f"{self.base}vendor/{slug(key)}")

    def venue(self, name: str) -> NamedNode:
        return self._shared_node("venue", name, lambda: f"{self.base}venue/{slug(name)}")

    def spdx_license(self, spdx_id: str) -> NamedNode:
        return self._shared_node("spdx", spdx_id, lambda: SPDX_LICENSES + segment(spdx_id))

    def relation(self, source: str, edge_type: str, target: str) -> NamedNode:
        return NamedNode(f"{self.base}relation/{source}/{segment(edge_type)}/{target}")

    def feature_tally(self, family: str, column: NamedNode | None = None) -> NamedNode:
        """The dataset description's tally of a feature family, or of one of its columns (kg.coverage)."""
        tail = "/" + column.value.rsplit("/", 1)[-1] if column is not None else ""
        return NamedNode(f"{self.base}dataset/features/{segment(family)}{tail}")

    def class_partition(self, cls: NamedNode) -> NamedNode:
        return NamedNode(f"{self.base}dataset/class/{cls.value.rsplit('#', 1)[-1].rsplit('/', 1)[-1]}")
