"""The brains behind the two task interfaces the pipelines depend on — dream's `Brain`
(`llm/base.py`) and `ConsolidateBrain` (`llm/consolidate.py`):

* `model.py` — `LLMBrain`, any litellm model, both interfaces;
* `scripted.py` — `ScriptedBrain`, a script for tests (ours and yours), both interfaces;
* `offline_dream/` — the rule-based dream brain, the default;
* `factory.py` — a brain from a spec (`offline`, `litellm:<model>`), as the `Workspace`
  asks for one.

The text rules the offline brains share with each other and with the pipelines are in
`reme_workbench/textrules/`. The pipelines (`dream/`, `consolidate/`) import none of this:
they take a brain.
"""
