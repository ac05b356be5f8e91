"""Pictures of an answer's verified evidence: metric sparklines and the incident timeline strip.

``evidence`` takes them from verified tool results when a run finishes (stored on the run), ``sparkline``
draws a series as SVG, ``render`` turns the stored figures into the HTML the chat page and the admin show.
"""
