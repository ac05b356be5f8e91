"""Date formats of the interface's languages where Django's own leave something out.

The server keeps and shows every time in UTC (``TIME_ZONE``), as the evidence's own times are; Django's
formats print a time without its zone, which a team at UTC+8 would read as local. Only the names set here
replace Django's for a language (``FORMAT_MODULE_PATH``); the rest stay the locale's.
"""
