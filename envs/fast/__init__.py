"""The batched engine: N duels stepped together in compiled code (extra `fast`, numba).

`engine.py` drives any system's compiled module; `streams.py` replays numpy's
dice; `vector_env.py` is the Gymnasium face. See the README, "The batched engine".
"""
