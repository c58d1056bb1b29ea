"""Small matrix products on one BLAS thread.

A brain's batch is a few small products (128 rows by a few hundred inputs). OpenBLAS
spreads them over its threads, and on a busy machine the threads cost a hundred times
the product: 46 ms of CPU for a 128-row batch of the Vampiro skirmish brain against
0.42 ms on one thread, with a tournament's worker on the other core. threadpoolctl
(the `fast` extra, which the batched engine that asks for batches needs anyway) holds
BLAS to one thread around each batch, for some 16 microseconds; without it the
products run as numpy was configured. One product of one row never threads.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from functools import cache
from typing import Any


@cache
def _controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def one_thread() -> AbstractContextManager[Any]:
    """A context in which BLAS runs on one thread (module docstring)."""
    controller = _controller()
    return nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")
