"""The rule catalog, one module per family. :mod:`jsoncontract.lint.codes` lists them all."""
