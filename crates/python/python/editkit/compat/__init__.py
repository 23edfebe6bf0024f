"""Drop-in adapters: the documented interfaces of the file tools editkit replaces, backed by editkit.

Each module reproduces one framework's interface (names, parameters, defaults, return values,
messages and exceptions) and lists, in one table in its docstring, every place it differs from
the original: where it is deliberately safer (it refuses ambiguous matches and writes over files
changed underneath, keeps line endings and byte order marks, confines every path to the
workspace by capabilities, writes atomically) and the few places the original's behaviour
cannot be reproduced from what editkit answers. It differs nowhere else.

- ``editkit.compat.gaia``: GAIA's ``FileIOToolsMixin``.
- ``editkit.compat.praisonai``: PraisonAI's ``edit_tools`` and ``file_tools``.
- ``editkit.compat.nodestep``: nodestep's ``LocalWorkspace``.
- ``editkit.compat.peteos``: peteos' ``TextEditor``.
- ``editkit.compat.file_modify``: the ``file_modify`` tool of workflow engines.
"""
