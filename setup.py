"""Build the optional compiled search of tablepi.analysis (everything else is in pyproject.toml).

``optional=True``: without a C compiler the install still succeeds and the analysis uses its pure-Python search,
which gives identical answers (only slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tablepi.analysis._kernel",
            sources=["tablepi/analysis/_kernel.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
