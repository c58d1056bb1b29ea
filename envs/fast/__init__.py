"""The batched engine: N duels stepped together in compiled code (extra `fast`, numba).

`engine.py` drives any system's compiled module; `streams.py` replays numpy's
dice; `vector_env.py` is the Gymnasium face. See the README, "The batched engine".

numba caches each module's machine code beside it and checks only that module's
own source for changes: after editing `streams.py` or `batch.py`, delete
`envs/fast/__pycache__/*.nb*` so that the system modules that use them recompile.
"""

COMPILED = {
    "esgrima_duel": "duelo.envs.fast.esgrima_duel",
    "infierno": "duelo.envs.fast.infierno",
}
"""System -> its compiled module. It stands here, where importing needs no numba, so that
the env registration can name the ids with a batched engine."""
