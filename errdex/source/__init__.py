"""The tools that read source code and write records: ``scan`` finds raise sites,
``pin`` follows them to another commit, ``update`` rewrites the blocks of record files
they own, and ``new`` scaffolds a record from a pasted error. None of them renders."""
