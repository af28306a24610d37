"""The review screens of the Jupyter workbench (ipywidgets and matplotlib).

Thin views over `reme_workbench.review`; the notebooks in `<vault>/workbench/` show them.
Needs the `workbench` extra: `pip install 'reme-workbench[workbench]'`.
"""

from ..errors import RemeError

try:
    import ipywidgets as _ipywidgets  # noqa: F401
    import matplotlib as _matplotlib  # noqa: F401
except ImportError as exc:  # the core installs without the notebook stack
    raise RemeError(
        f"The workbench needs {exc.name}: install the notebook stack with "
        "`pip install 'reme-workbench[workbench]'`."
    ) from None

from .archive import ArchiveView
from .communities import CommunitiesView
from .merges import MergeVotesView
from .queue import ProposalQueueView
from .uncertain import UncertainView

__all__ = ["ArchiveView", "CommunitiesView", "MergeVotesView", "ProposalQueueView", "UncertainView"]
