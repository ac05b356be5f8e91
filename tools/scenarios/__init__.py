"""Scenario packs: folders of logs, metrics, business tables and runbooks that the tools read.

``pack.py`` reads and validates a pack, ``loader.py`` replaces the loaded data with it, and
``mysql_business.py`` loads its business tables into a MySQL database for production-style runs.
The shipped packs live in ``packs/``.
"""
