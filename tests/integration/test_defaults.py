"""The library's own defaults equal config.py's.

vault/ and proposals/ may import nothing above them (the layer rule), so the vault core
and the proposal queue keep their own parameter defaults for a caller that uses them
without a Workspace. config.py is where a default is stated (docs/spec.md §10); this test
keeps the copies equal to it, so a library user and a CLI user get the same behaviour.
"""

from __future__ import annotations

import inspect

import pytest

from reme_workbench.config import Settings
from reme_workbench.proposals.queue import DEFAULT_AUTO_APPLY
from reme_workbench.vault import checks
from reme_workbench.vault.lock import VaultLock
from reme_workbench.vault.store import Store
from reme_workbench.vault.vault import Vault

SETTINGS = Settings()


def _default(fn, name: str):
    return inspect.signature(fn).parameters[name].default


@pytest.mark.parametrize("fn", [Vault.__init__, Vault.open], ids=["Vault()", "Vault.open"])
def test_the_vault_defaults_are_the_vault_settings(fn):
    vault = SETTINGS.vault
    assert _default(fn, "lock_timeout") == vault.lock_timeout_s
    assert _default(fn, "max_replans") == vault.max_replans
    assert _default(fn, "max_note_bytes") == vault.max_note_bytes


def test_the_store_and_lock_wait_as_long_as_the_settings_say():
    assert _default(Store.__init__, "lock_timeout") == SETTINGS.vault.lock_timeout_s
    assert _default(VaultLock.__init__, "timeout") == SETTINGS.vault.lock_timeout_s


def test_the_hub_check_asks_the_abstract_settings_pillars():
    assert _default(checks._pillars_are_members, "min_pillars") == SETTINGS.abstract.min_pillars


def test_what_applies_at_once_is_the_proposal_settings_default():
    assert set(DEFAULT_AUTO_APPLY) == set(SETTINGS.proposals.auto_apply)
