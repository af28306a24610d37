"""The review layer of the workbench: what a person reads about proposals, communities,
merge votes, uncertain duplicates and the archive — read models, with no widget and no
decision in them. The decisions a person takes on them are operations
(`reme_workbench.ops`: decide, accept_many, replan, thaw and the uncertain routes), which
the screens in `reme_workbench.widgets` call.
"""

from .archive import ArchiveOverview, archive_overview
from .communities import CommunitiesOverview, CommunityView, communities_overview, community_drawing
from .merges import MergeReview, merge_reviews
from .proposals import (
    FileDiff,
    ReviewFilter,
    Section,
    bucket_of,
    checks_of,
    file_diffs,
    material_of,
    story_sections,
    tokens_of,
)
from .uncertain import UncertainEntry, uncertain_entries

__all__ = [
    "ArchiveOverview",
    "CommunitiesOverview",
    "CommunityView",
    "MergeReview",
    "UncertainEntry",
    "archive_overview",
    "communities_overview",
    "community_drawing",
    "merge_reviews",
    "uncertain_entries",
    "FileDiff",
    "ReviewFilter",
    "Section",
    "bucket_of",
    "checks_of",
    "file_diffs",
    "material_of",
    "story_sections",
    "tokens_of",
]
