"""The indexing pipeline: pure stages (parse, link, mine, embed, merge) wired into Ray in one place.

The public surface is the stage modules, each with its own ``__all__``; ``pipeline.job`` runs them.
"""

__all__: list[str] = []
