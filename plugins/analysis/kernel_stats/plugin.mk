# analysis `kernel_stats`: PCRE2 for the class_map regexes.
LIBS_kernel_stats := $(shell pkg-config --libs libpcre2-8)
CFLAGS_kernel_stats := $(shell pkg-config --cflags libpcre2-8)
