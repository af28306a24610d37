"""The pure vault core: no LLM, no index, no network.

Other packages read a note's frontmatter through these names (`vault.frontmatter`), never
through a private module: one rule for where the block is and when its YAML is bad.
"""

from .frontmatter import (
    BOM,
    FrontmatterSpan,
    field_text,
    find_frontmatter,
    load_frontmatter,
    load_yaml,
    read_frontmatter,
)

__all__ = [
    "BOM",
    "FrontmatterSpan",
    "field_text",
    "find_frontmatter",
    "load_frontmatter",
    "load_yaml",
    "read_frontmatter",
]
