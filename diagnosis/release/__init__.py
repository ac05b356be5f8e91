"""The release guard between a composer draft and the reader (seed 003 §2-3, DESIGN.md "Release guard").

Pure text logic, no database and no model: ``draft`` reads a markdown draft as the page will render it,
``salient`` finds the tokens a sentence must not invent, ``policy`` applies the deterministic release
rules. The semantic guard's model call lives with the composer node (``diagnosis.nodes.semantic_guard``).
"""
