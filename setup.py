"""The native core, `damas.engine._core` (engine/native/): a C extension built by
`pip install`. Everything else about the package is in pyproject.toml.

It needs a C compiler and Python's headers (Debian: gcc, and python3-dev for Debian's own
Python). Optimised, but for any machine of the architecture: no -march=native, so a wheel
built here runs elsewhere.
"""

from setuptools import Extension, setup

NATIVE = "engine/native"

setup(
    ext_modules=[
        Extension(
            "damas.engine._core",
            sources=[f"{NATIVE}/{name}" for name in ("module.c", "movegen.c", "perft.c",
                                                     "eval.c", "search.c")],
            depends=[f"{NATIVE}/core.h", f"{NATIVE}/search.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-pthread"],
            extra_link_args=["-pthread"],  # the search's helper threads
        )
    ]
)
