"""Stratum core: repository memory (structure, history, experience) with no Ray, gRPC or git.

The public surface is the modules themselves (``stratum.tools``, ``stratum.store``, ...), each with
its own ``__all__``; ``docs/architecture.md`` says what each holds.
"""

__all__: list[str] = []
