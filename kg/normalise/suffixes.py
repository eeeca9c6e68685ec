"""The Public Suffix List, as the installed publicsuffixlist package ships it (read, never fetched)."""

from __future__ import annotations

from functools import lru_cache

from publicsuffixlist import PublicSuffixList


@lru_cache(maxsize=1)
def suffix_list() -> PublicSuffixList:
    """The list in the package's own file, parsed once (about 30 ms), both of its sections.

    ``PublicSuffixList()`` with no source reads the ``public_suffix_list.dat`` that the
    wheel installs; only ``publicsuffixlist.update``, which kg never imports, downloads
    a newer one. The list is as new as the installed package: upgrading it is how the
    list is updated.

    >>> suffix_list().publicsuffix("example.com.vn")
    'com.vn'
    """
    return PublicSuffixList()

