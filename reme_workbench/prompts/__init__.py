"""Prompt files of the brain, one folder per language (`en/`, `zh/`).

Data only: `reme_workbench.llm.prompts` loads them. `{{json_schema}}` in a file is
replaced by the JSON Schema of the reply that prompt asks for.
"""
