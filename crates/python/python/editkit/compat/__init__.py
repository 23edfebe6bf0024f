"""Drop-in adapters: the documented interfaces of the file tools editkit replaces, backed by editkit.

Each module reproduces one framework's interface (names, parameters, defaults, return values,
messages and exceptions) and documents, in one table, where it is deliberately safer than the
original (it refuses ambiguous matches and writes over files changed underneath, keeps line
endings and byte order marks, and confines every path to the workspace by capabilities); it
never differs otherwise.

- ``editkit.compat.gaia``: GAIA's ``FileIOToolsMixin``.
- ``editkit.compat.praisonai``: PraisonAI's ``edit_tools`` and ``file_tools``.
- ``editkit.compat.nodestep``: nodestep's ``LocalWorkspace``.
- ``editkit.compat.peteos``: peteos' ``TextEditor``.
- ``editkit.compat.file_modify``: the ``file_modify`` tool of workflow engines.
"""
