# analysis `critical_path`: PCRE2 for the what-if kernel and sync regexes.
LIBS_critical_path := $(shell pkg-config --libs libpcre2-8)
CFLAGS_critical_path := $(shell pkg-config --cflags libpcre2-8)
