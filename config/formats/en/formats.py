# Django's English formats, with the time zone's name ("Dec. 3, 2026, 5:57 a.m. UTC").
DATETIME_FORMAT = "N j, Y, P e"
SHORT_DATETIME_FORMAT = "m/d/Y P e"
