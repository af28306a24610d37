"""Proposals: every change a pipeline wants, as a reviewable, revertible changeset."""

from .model import STATES, Proposal
from .queue import DEFAULT_AUTO_APPLY, Policy, ProposalQueue

__all__ = ["Proposal", "STATES", "Policy", "ProposalQueue", "DEFAULT_AUTO_APPLY"]
