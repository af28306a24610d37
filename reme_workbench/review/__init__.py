"""The review layer of the workbench: what a person reads about proposals, communities,
merge votes, uncertain duplicates and the archive, and the decisions they take.

Library code with no widget in it: `reme_workbench.widgets` draws these in Jupyter, and
any other front end may call them. Every decision goes through the proposal queue and
the changeset store, so the same checks hold as on the command line.
"""

from .archive import ArchiveOverview, archive_overview, thaw
from .communities import CommunitiesOverview, CommunityView, communities_overview, community_drawing
from .merges import MergeReview, merge_reviews
from .proposals import (
    Decision,
    FileDiff,
    ReviewFilter,
    Section,
    accept_many,
    bucket_of,
    checks_of,
    decide,
    file_diffs,
    material_of,
    replan,
    story_sections,
    tokens_of,
)
from .uncertain import UncertainEntry, hand_to_dream, keep_both, merge_anyway, uncertain_entries

__all__ = [
    "ArchiveOverview",
    "CommunitiesOverview",
    "CommunityView",
    "MergeReview",
    "UncertainEntry",
    "archive_overview",
    "communities_overview",
    "community_drawing",
    "hand_to_dream",
    "keep_both",
    "merge_anyway",
    "merge_reviews",
    "thaw",
    "uncertain_entries",
    "Decision",
    "FileDiff",
    "ReviewFilter",
    "Section",
    "accept_many",
    "bucket_of",
    "checks_of",
    "decide",
    "file_diffs",
    "material_of",
    "replan",
    "story_sections",
    "tokens_of",
]
