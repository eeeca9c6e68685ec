"""kg.store._locks: the writer's lock (filelock, portable) and a generation's readers' shared locks,
as the store folder's generations use them (tests/test_store_versions.py holds the whole-store cases)."""

from __future__ import annotations

import gc
import threading

import pytest

from kg.errors import StoreError
from kg.store import _generations as generations
from kg.store._locks import fcntl, lock_exclusive, lock_shared, try_exclusive


def test_one_writer_at_a_time_in_one_process_too(tmp_path):
    first = generations.lock_writer(tmp_path, wait_s=0)
    with pytest.raises(StoreError, match="locked by another process that writes to it"):
        generations.lock_writer(tmp_path, wait_s=0.2)
    first.release()
    generations.lock_writer(tmp_path, wait_s=0).release()
    assert [p.name for p in tmp_path.iterdir()] == [generations.WRITER_LOCK]  # the lock file stays


def test_a_writer_lock_is_let_go_from_another_thread_or_when_dropped(tmp_path):
    held = lock_exclusive(tmp_path / "w.lock", wait_s=0)
    releasing = threading.Thread(target=held.release)
    releasing.start()
    releasing.join()
    dropped = lock_exclusive(tmp_path / "w.lock", wait_s=0)
    del dropped
    gc.collect()
    lock_exclusive(tmp_path / "w.lock", wait_s=0).release()


def test_a_folder_that_cannot_hold_the_lock_file_is_one_line(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(StoreError, match="cannot write to the store .*a-file"):
        generations.lock_writer(tmp_path / "a-file", wait_s=0.2)


@pytest.mark.skipif(fcntl is None, reason="readers hold no lock where there is no flock")
def test_readers_share_a_generation_and_keep_it_from_removal(tmp_path):
    path = tmp_path / "gen-00000001.lock"
    path.touch()
    readers = [lock_shared(path), lock_shared(path)]  # readers share
    assert all(reader is not None for reader in readers)
    assert try_exclusive(path) is False  # the writer leaves a generation that someone reads
    for reader in readers:
        assert reader is not None
        reader.release()
    probe = try_exclusive(path)
    assert probe not in (True, False)  # now it is the writer's to remove
    assert not isinstance(probe, bool)
    probe.release()


def test_a_generation_without_a_lock_file_has_nothing_to_hold(tmp_path):
    assert lock_shared(tmp_path / "gone.lock") is None
    assert try_exclusive(tmp_path / "gone.lock") is True
