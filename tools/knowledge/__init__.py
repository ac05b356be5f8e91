"""The knowledge base behind ``lookup_knowledge``: chunking, tokenisation, the BM25 index and its services.

Entry points: ``search.search_knowledge`` (the tool) and the write services in ``ingest``.
"""
