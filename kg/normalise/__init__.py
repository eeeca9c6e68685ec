"""Read the free text of catalog cells into typed values for the typed query layer.

Every cell of a catalog record is ``{value, citation, status, tier}`` where
``value`` is prose written by researchers ("Apache 2.0", "via official adapter —
LangChain MCP adapters", "2023 (founded)"). The functions here turn that prose
into small closed vocabularies, numbers, dates and identifiers. The rules were
fitted to the value distributions of all 912 records in
``data/landscape-site.json`` and the seed record; comments cite the real values
that motivate each rule.

One module per field family: ``licences``, ``protocols``, ``deployment``, ``citations``,
``programming_languages``, ``dates``, ``github``, ``numbers``, ``vendors`` (domains, venues,
vendors), ``features`` and ``compliance``, over the shared text rules of
``text``; every public name is re-exported here.

Conventions:

* pure functions, standard library only, no I/O, no RDF;
* every function is total: any string (empty, control characters, very long,
  non-ASCII) gives a result and never an exception;
* ``status`` is the cell status: ``real-data``, ``estimate``,
  ``not-applicable``, ``depth-floor-reached`` or ``no-data``. Text is only
  interpreted when the status says it holds a researched value.

>>> spdx_license("Apache 2.0", "real-data").expression
'Apache-2.0'
>>> protocol_mode("via official adapter — LangChain MCP adapters", "real-data")
'adapter'
>>> first_date("2023 (founded)")
('2023', 'gYear')
"""

from __future__ import annotations

from .citations import TrajectoryPoint, citation_counts, citation_trajectory, publication_year
from .compliance import compliance_frameworks
from .dates import Period, created_date, first_date, release_date, release_info, since_period
from .deployment import deployment_kind
from .features import feature_state
from .github import github_repo, github_stars
from .programming_languages import languages
from .licences import OSI_APPROVED, SPDX_IDS, LicenseInfo, license_is_osi, spdx_license
from .numbers import number
from .protocols import PROTOCOL_MODES, protocol_mode, protocols_in_support_cell
from .text import DEPTH_FLOOR, ESTIMATE, NO_DATA, NOT_APPLICABLE, REAL_DATA, fold
from .vendors import VendorInfo, publication_venue, registrable_domain, vendor_of

__all__ = [
    "LicenseInfo",
    "OSI_APPROVED",
    "PROTOCOL_MODES",
    "Period",
    "TrajectoryPoint",
    "SPDX_IDS",
    "VendorInfo",
    "DEPTH_FLOOR",
    "ESTIMATE",
    "NO_DATA",
    "NOT_APPLICABLE",
    "REAL_DATA",
    "citation_counts",
    "citation_trajectory",
    "compliance_frameworks",
    "deployment_kind",
    "feature_state",
    "created_date",
    "first_date",
    "fold",
    "github_repo",
    "github_stars",
    "languages",
    "license_is_osi",
    "number",
    "protocol_mode",
    "protocols_in_support_cell",
    "publication_venue",
    "publication_year",
    "registrable_domain",
    "release_date",
    "release_info",
    "since_period",
    "spdx_license",
    "vendor_of",
]
