"""reme-workbench: an agent's long-term memory as an Obsidian vault."""

__version__ = "0.1.0"
