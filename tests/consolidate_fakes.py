"""A base for the consolidate tests' scripted brains: each test scripts the one task it
exercises and inherits a loud failure for the other three, so a phase that asks for a
task its test did not script fails naming it."""

from __future__ import annotations

from reme_workbench.llm.consolidate import ConsolidateBrain


class OneTaskBrain(ConsolidateBrain):
    model = "fake"

    def vote(self, request):
        raise AssertionError(f"{type(self).__name__} scripts no votes; this test must not vote")

    def merge(self, request):
        raise AssertionError(f"{type(self).__name__} scripts no merges; this test must not merge")

    def plan_split(self, request):
        raise AssertionError(f"{type(self).__name__} scripts no splits; this test must not split")

    def write_hub(self, request):
        raise AssertionError(f"{type(self).__name__} scripts no hubs; this test must not write one")
