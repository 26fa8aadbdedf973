# filter `regex_select`: PCRE2 (Python-style regexes: \d, \w, (?:...), (?i)).
LIBS_regex_select := $(shell pkg-config --libs libpcre2-8)
CFLAGS_regex_select := $(shell pkg-config --cflags libpcre2-8)
