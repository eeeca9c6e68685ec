"""The store's storage errors (kg.store._faults): one line, naming the folder, only for faults of the
storage itself."""

from __future__ import annotations

import pytest

from kg.errors import StoreError
from kg.store._faults import is_storage_fault, open_read_only, open_writable, reason, storage_error


def test_a_storage_fault_is_one_short_line():
    err = RuntimeError("IO error: No space left on device\nwhile writing block 12\n" + "x" * 500)
    assert is_storage_fault(err) and reason(err) == "IO error: No space left on device"
    assert str(storage_error(err)) == "cannot read the store: IO error: No space left on device"
    assert storage_error(ValueError("IO error: not ours")) is None  # not an error pyoxigraph raises for storage
    assert storage_error(RuntimeError("Type error: not a storage fault")) is None


def test_opening_a_folder_that_is_not_a_store_names_it(tmp_path):
    missing = tmp_path / "no-store-here"
    with pytest.raises(StoreError, match="cannot open store .*no-store-here"):
        open_read_only(missing)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a store", encoding="utf-8")
    with pytest.raises(StoreError, match="cannot write to the store .*a-file"):
        open_writable(blocked)
