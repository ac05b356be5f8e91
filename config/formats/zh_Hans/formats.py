# Django's Simplified Chinese formats, with the time zone's name ("2026年12月3日 05:57 UTC").
DATETIME_FORMAT = "Y年n月j日 H:i e"
SHORT_DATETIME_FORMAT = "Y年n月j日 H:i e"
