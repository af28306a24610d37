"""The offline dream brain: deterministic rules, no model, no network — what every user
without a key sees (docs/spec.md §5). `OfflineBrain` implements dream's `Brain`
(`llm/base.py`): statements and their cues (`statements.py`), chat transcripts read as
turns with speakers and roles (`chat.py`), what people state about themselves
(`topics.py` reads it from the parse, `conversation.py` plans notes of it), documentation sections
(`sections.py`), names and descriptions (`naming.py`), the coverage judge (`coverage.py`)
and the links it weaves (`weave.py`); the text rules it shares with the offline
consolidate brain are in `textrules/`."""

from .offline import OfflineBrain

__all__ = ["OfflineBrain"]
