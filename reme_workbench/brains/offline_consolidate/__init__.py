"""The offline consolidate brain: deterministic rules, no model, no network — what every
user without a key sees (docs/spec.md §7.9). `OfflineConsolidateBrain` implements
`ConsolidateBrain` (`llm/consolidate.py`): the three judges and the merge (`offline.py`),
the split plan (`split.py`), the hub note (`hub.py`), on the blocks, statements and values
of a note's text (`text.py`). It reads the hub's rules and the chance level as the
pipeline does (`consolidate/hub_rules.py`, `consolidate/candidates.py`), and the text
rules it shares with the dream brain from `textrules/`."""

from .offline import Anchors, OfflineConsolidateBrain

__all__ = ["OfflineConsolidateBrain", "Anchors"]
