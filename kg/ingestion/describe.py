"""Description upkeep, a stage of the ingest: the feature cells of the records written, tallied as they
go, so that the dataset description is refreshed at the end without reading them back."""

from __future__ import annotations

from typing import Iterable

from ..coverage import Written
from ..description import refresh_description
from ..mapping import feature_states
from ..records import Record
from ..store import GraphStore
from ..vocab import Iris


class DescriptionUpkeep:
    """Tallies the feature cells of each record written; ``refresh`` rewrites the description."""

    def __init__(self, iris: Iris) -> None:
        self.iris = iris
        self.told: Written | None = Written()  # the records' feature cells (None: read them back)

    def wrote(self, records: Iterable[Record]) -> None:
        """Count these records as written; a record written twice in one ingest cannot be taken back
        out of the tally, so from then on the description reads the feature cells back."""
        for record in records:
            if self.told is not None and not self.told.wrote(self.iris.record_graph(record.id),
                                                             feature_states(record)):
                self.told = None

    def refresh(self, store: GraphStore) -> None:
        """The dataset description of the store as the ingest leaves it."""
        refresh_description(store, self.iris, self.told)
