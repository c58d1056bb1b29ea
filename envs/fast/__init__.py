"""The batched engine: N duels stepped together in compiled code (extra `fast`, numba).

`engine.py` drives any system's compiled module; `loops.py` holds the env and
tournament loops every system module compiles on its own kernels; `streams.py`
replays numpy's dice; `vector_env.py` and `scalar_env.py` are the Gymnasium faces.
See docs/benchmarks.md, "The batched engine".

numba caches each module's machine code beside it; `loops.drop_stale_cache` keeps
that cache honest when a file shared by every system changes. A system names its
compiled module in its `System` entry (`System.fast`), so the env registration can name the
ids with a batched engine without importing numba.
"""

ENGINES = ("python", "fast")
"""What a duel can run on (`gymnasium.make(id, engine=...)`, `duelo train --engine`,
`duelo tournament --engine`): the reference rules, or the batched engine."""
